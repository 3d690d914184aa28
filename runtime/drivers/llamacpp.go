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
// contexts of --ctx-size tokens (0: 4096, capped at the model's training
// context), Threads threads each. The libraries come from
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
	ContextSize int // --ctx-size
}

func (f *llamacppFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.ContextSize, "ctx-size", f.ContextSize, "context size in tokens for llamacpp (0 = min(4096, the model's training context))")
}

func (f *llamacppFlags) Validate(c Common) error {
	if c.Model == "" {
		return errors.New("--model is required for --runtime llamacpp (a GGUF file)")
	}
	if f.ContextSize < 0 {
		return fmt.Errorf("--ctx-size must not be negative, got %d", f.ContextSize)
	}
	return nil
}

func (f *llamacppFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	rt, err := llamacpp.Open(ctx, llamacpp.Options{
		Model: c.Model, Threads: c.Threads, ContextSize: f.ContextSize, Workers: c.Workers,
		ChatTemplate: c.ChatTemplate, ChatTemplateSource: c.ChatTemplateSource, Thinking: c.Thinking, TemplateNow: c.TemplateNow,
	})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return rt, nil
}

func (f *llamacppFlags) Model(c Common) (results.Model, error) { return LocalModel(c.Model) }
