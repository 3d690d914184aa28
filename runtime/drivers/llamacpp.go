package drivers

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// llamacppDriver loads a GGUF file in process with llama.cpp: Workers
// requests in flight of --ctx-size tokens each (0: 4096, capped at the
// model's training context), decoded together in one context of Threads
// threads, or with --batch off each alone in its own context of Threads
// threads. The libraries come from
// $POCKETEVAL_LLAMA_LIB or scripts/setup-llamacpp.sh's default location.
func llamacppDriver() Driver {
	return Driver{
		Name:     "llamacpp",
		Summary:  "a GGUF model in process through llama.cpp",
		Caps:     Caps{InProcess: true, Bench: true, LocalModel: true, ChatTemplates: true},
		NewFlags: func() Flags { return &llamacppFlags{} },
	}
}

type llamacppFlags struct {
	ContextSize int    // --ctx-size
	Batch       string // --batch on|off
	PrefixCache string // --prefix-cache on|off
}

func (f *llamacppFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.ContextSize, "ctx-size", f.ContextSize, "context size in tokens for llamacpp (0 = min(4096, the model's training context))")
	fs.StringVar(&f.Batch, "batch", "on", "llamacpp: decode concurrent requests together (on) or each alone, for exact reproduction (off)")
	fs.StringVar(&f.PrefixCache, "prefix-cache", "on", "llamacpp with --batch on: start each prompt from the longest cached prefix (on) or evaluate it whole (off)")
}

// Contexts is one with batching on (every request a sequence of one
// context), else one per request.
func (f *llamacppFlags) Contexts(c Common) int {
	if f.Batch == "off" {
		return max(c.Workers, 1)
	}
	return 1
}

func (f *llamacppFlags) Validate(c Common) error {
	if c.Model == "" {
		return errors.New("--model is required for --runtime llamacpp (a GGUF file)")
	}
	if f.ContextSize < 0 {
		return fmt.Errorf("--ctx-size must not be negative, got %d", f.ContextSize)
	}
	for _, o := range []struct{ flag, v string }{{"--batch", f.Batch}, {"--prefix-cache", f.PrefixCache}} {
		if o.v != "" && o.v != "on" && o.v != "off" {
			return fmt.Errorf("%s must be on or off, got %q", o.flag, o.v)
		}
	}
	return checkGGUFLimits(c, f.ContextSize)
}

func (f *llamacppFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	rt, err := llamacpp.Open(ctx, llamacpp.Options{
		Model: c.Model, Threads: c.Threads, ContextSize: f.ContextSize, Workers: c.Workers,
		Batch: f.Batch, PrefixCache: f.PrefixCache,
		ChatTemplate: c.ChatTemplate, ChatTemplateSource: c.ChatTemplateSource, Thinking: c.Thinking, TemplateNow: c.TemplateNow,
	})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return rt, nil
}

// Settings: the context size decides which prompts fit and where long
// generations stop.
func (f *llamacppFlags) Settings() map[string]any {
	return map[string]any{"ctx_size": f.ContextSize}
}

func (f *llamacppFlags) Model(c Common) (results.Model, error) { return LocalModel(c.Model) }
