package cli

import (
	"context"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// openMNN loads an MNN LLM package: o.Workers engine instances with
// o.Threads threads each. Without the mnn build tag mnn.Open returns an
// error naming the tag.
func openMNN(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	if o.Model == "" {
		return nil, FlagErrorf("--model is required for --runtime mnn (a package directory or its config.json)")
	}
	tmpl, label, thinking, err := o.chatTemplateOptions()
	if err != nil {
		return nil, err
	}
	mo := mnnOptions(o, nil)
	mo.ChatTemplate, mo.ChatTemplateSource, mo.Thinking, mo.TemplateNow = tmpl, label, thinking, o.TemplateNow
	return mnn.Open(ctx, o.Model, mo)
}

// mnnOptions maps the shared runtime flags (and extra MNN config keys,
// which may be nil) to mnn.Options.
func mnnOptions(o RuntimeOptions, extra map[string]any) mnn.Options {
	return mnn.Options{
		Threads:   o.Threads,
		Backend:   o.Backend,
		Precision: o.Precision,
		Memory:    o.Memory,
		Workers:   o.Workers,
		Config:    extra,
	}
}
