package drivers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/openai"
)

// openaiDriver opens an OpenAI-compatible server and probes it (GET
// /models). The server renders chat templates; --thinking on|off is asked
// of it in each chat request (Caps.ServerThinking). The API key is read
// from the environment variable named by --api-key-env (default
// OPENAI_API_KEY); an unset variable means no key, which local servers
// accept.
func openaiDriver() Driver {
	return Driver{
		Name:    "openai",
		Summary: "any OpenAI-compatible server (--model is the served model's name)",
		Caps:    Caps{ServerThinking: true},
		NewFlags: func() Flags {
			return &openaiFlags{APIKeyEnv: "OPENAI_API_KEY", Endpoint: openai.EndpointChat, RequestTimeout: 10 * time.Minute, MaxRetries: 5, MaxLength: 2048}
		},
	}
}

type openaiFlags struct {
	BaseURL        string        // --base-url
	APIKeyEnv      string        // --api-key-env: name of the env var holding the key
	Endpoint       string        // --endpoint: chat or completions
	RequestTimeout time.Duration // --request-timeout
	MaxRetries     int           // --max-retries
	MaxLength      int           // --max-length: lm-eval's max_length for rolling windows through /tokenize and echo
}

func (f *openaiFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.BaseURL, "base-url", f.BaseURL, "OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1")
	fs.StringVar(&f.APIKeyEnv, "api-key-env", f.APIKeyEnv, "environment variable holding the API key for openai")
	fs.StringVar(&f.Endpoint, "endpoint", f.Endpoint, "openai endpoint: chat or completions")
	fs.DurationVar(&f.RequestTimeout, "request-timeout", f.RequestTimeout, "per-request timeout for openai")
	fs.IntVar(&f.MaxRetries, "max-retries", f.MaxRetries, "retries on 429/5xx/connection errors for openai")
	fs.IntVar(&f.MaxLength, "max-length", f.MaxLength, "lm-eval's max_length for openai: perplexity tasks through a server's /tokenize and completions echo are cut into windows of max_length-2 tokens")
}

func (f *openaiFlags) Validate(c Common) error {
	if f.BaseURL == "" {
		return errors.New("--base-url is required for --runtime openai (e.g. http://127.0.0.1:8080/v1)")
	}
	if f.Endpoint != openai.EndpointChat && f.Endpoint != openai.EndpointCompletions {
		return fmt.Errorf("--endpoint %q: must be %s or %s", f.Endpoint, openai.EndpointChat, openai.EndpointCompletions)
	}
	if c.Thinking != chattemplate.ThinkingModelDefault && f.Endpoint == openai.EndpointCompletions {
		return fmt.Errorf("--thinking %s: --endpoint %s sends raw prompts, which no chat template renders", c.Thinking, openai.EndpointCompletions)
	}
	if f.MaxRetries < 0 {
		return fmt.Errorf("--max-retries %d: must not be negative", f.MaxRetries)
	}
	if f.RequestTimeout <= 0 {
		return fmt.Errorf("--request-timeout %v: must be positive", f.RequestTimeout)
	}
	if f.MaxLength < 3 {
		return fmt.Errorf("--max-length %d: must be at least 3", f.MaxLength)
	}
	return nil
}

func (f *openaiFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	var key string
	if f.APIKeyEnv != "" {
		key = os.Getenv(f.APIKeyEnv)
	}
	cl, err := openai.New(openai.Options{
		BaseURL: f.BaseURL, Model: c.Model, APIKey: key, Endpoint: f.Endpoint,
		RequestTimeout: f.RequestTimeout, MaxRetries: f.MaxRetries, Thinking: c.Thinking,
		OnRetry: c.Warn, MaxLength: f.MaxLength,
	})
	if err != nil {
		return nil, err
	}
	// Fail now, not on every sample, when the server is unreachable or
	// rejects the key; and learn what it serves for the manifest.
	if err := cl.Probe(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	return cl.Runtime(), nil
}

// Nondeterminism: whether a server's responses are reproducible is the
// server's affair, which pocketeval cannot see.
func (f *openaiFlags) Nondeterminism(c Common) string {
	return "the server decides whether its responses are reproducible (pocketeval serve with its defaults is; a server that batches concurrent requests, such as llama-server with several slots, is not)"
}

// Settings: the endpoint decides whether the server or pocketeval
// renders the prompt.
func (f *openaiFlags) Settings() map[string]any {
	return map[string]any{"endpoint": f.Endpoint, "max_length": f.MaxLength}
}

// Model is the served model's name; there are no files to hash.
func (f *openaiFlags) Model(c Common) (Model, error) {
	return Model{Path: c.Model}, nil
}
