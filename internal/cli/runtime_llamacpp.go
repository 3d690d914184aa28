package cli

import (
	"context"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// openLlamacpp loads a GGUF file in process with llama.cpp: o.Workers
// contexts of o.ContextSize tokens (0: 4096, capped at the model's training
// context), o.Threads threads each. The libraries come from
// $POCKETEVAL_LLAMA_LIB or scripts/setup-llamacpp.sh's default location.
func openLlamacpp(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	if o.Model == "" {
		return nil, FlagErrorf("--model is required for --runtime llamacpp (a GGUF file)")
	}
	if o.ContextSize < 0 {
		return nil, FlagErrorf("--ctx-size must not be negative, got %d", o.ContextSize)
	}
	tmpl, label, thinking, err := o.chatTemplateOptions()
	if err != nil {
		return nil, err
	}
	rt, err := llamacpp.Open(ctx, llamacpp.Options{
		Model:              o.Model,
		Threads:            o.Threads,
		ContextSize:        o.ContextSize,
		Workers:            o.Workers,
		ChatTemplate:       tmpl,
		ChatTemplateSource: label,
		Thinking:           thinking,
		TemplateNow:        o.TemplateNow,
	})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return rt, nil
}
