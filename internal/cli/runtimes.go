package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/runtime"
)

// RuntimeOptions are the flags that select and configure a runtime. Every
// command that opens a runtime (run, serve, bench) shares them.
type RuntimeOptions struct {
	Name  string // --runtime: llamacpp, openai, mnn, replay
	Model string // --model: a file, a package directory, or a registry name
	// Threads for in-process engines (--threads); 0 means 1 on this class
	// of machine (engines spin and thrash when oversubscribed).
	Threads     int
	ContextSize int // --ctx-size for llamacpp; 0 = engine default
	// Workers is how many independent engine contexts an in-process
	// runtime keeps (set from --concurrency by run).
	Workers int

	// openai
	BaseURL        string        // --base-url
	APIKeyEnv      string        // --api-key-env: name of the env var holding the key
	Endpoint       string        // --endpoint: chat or completions
	RequestTimeout time.Duration // --request-timeout
	MaxRetries     int           // --max-retries

	// replay
	Predictions string // --predictions FILE

	// Chat templates (llamacpp, mnn): --chat-template FILE overrides the
	// model's; --thinking on|off|model-default; TemplateNow pins
	// strftime_now (set by run when resuming).
	ChatTemplateFile string
	Thinking         string
	TemplateNow      time.Time

	// mnn
	Backend   string // --backend (cpu, opencl, metal...)
	Precision string // --precision (low, normal, high)
	Memory    string // --memory-mode (low, normal, high)
}

// AddFlags registers the runtime flags on fs.
func (o *RuntimeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Name, "runtime", "", "runtime: "+strings.Join(runtimeNames(), ", "))
	fs.StringVar(&o.Model, "model", "", "model file (GGUF), MNN package directory or config.json, or model name for openai")
	fs.IntVar(&o.Threads, "threads", 1, "engine threads per worker (in-process runtimes)")
	fs.IntVar(&o.ContextSize, "ctx-size", 0, "context size in tokens for llamacpp (0 = min(4096, the model's training context))")
	fs.StringVar(&o.BaseURL, "base-url", "", "OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key for openai")
	fs.StringVar(&o.Endpoint, "endpoint", "chat", "openai endpoint: chat or completions")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", 10*time.Minute, "per-request timeout for openai")
	fs.IntVar(&o.MaxRetries, "max-retries", 5, "retries on 429/5xx/connection errors for openai")
	fs.StringVar(&o.Predictions, "predictions", "", "predictions file for --runtime replay")
	fs.StringVar(&o.ChatTemplateFile, "chat-template", "", "Jinja chat template `FILE` replacing the model's (llamacpp, mnn)")
	fs.StringVar(&o.Thinking, "thinking", "model-default", "reasoning mode for templates with enable_thinking: on, off or model-default")
	fs.StringVar(&o.Backend, "backend", "cpu", "MNN backend")
	fs.StringVar(&o.Precision, "precision", "low", "MNN precision: low, normal, high")
	fs.StringVar(&o.Memory, "memory-mode", "low", "MNN memory mode: low, normal, high")
}

// runtimeOpeners maps runtime names to constructors. Each runtime's file
// in this package provides its opener.
var runtimeOpeners = map[string]func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error){
	"llamacpp": openLlamacpp,
	"openai":   openOpenAI,
	"mnn":      openMNN,
	"replay":   openReplay,
}

func runtimeNames() []string {
	var names []string
	for n := range runtimeOpeners {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OpenRuntime opens the runtime the options name.
func OpenRuntime(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	if o.Name == "" {
		return nil, FlagErrorf("--runtime is required (one of %s)", strings.Join(runtimeNames(), ", "))
	}
	open, ok := runtimeOpeners[o.Name]
	if !ok {
		return nil, FlagErrorf("unknown runtime %q (one of %s)", o.Name, strings.Join(runtimeNames(), ", "))
	}
	if err := checkTemplateFlags(o); err != nil {
		return nil, err
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.Workers <= 0 {
		o.Workers = 1
	}
	rt, err := open(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("open runtime %s: %w", o.Name, err)
	}
	return rt, nil
}
