package drivers

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// mnnDriver loads an MNN LLM package in process: Workers engine instances
// with Threads threads each. Without the mnn build tag mnn.Open returns an
// error naming the tag.
func mnnDriver() Driver {
	return Driver{
		Name:     "mnn",
		Summary:  "an MNN LLM package in process (build with -tags mnn)",
		Caps:     Caps{InProcess: true, Bench: true, LocalModel: true, UnseededSampling: true, ChatTemplates: true},
		NewFlags: func() Flags { return &MNNFlags{Backend: "cpu", Precision: "low", Memory: "low"} },
	}
}

// MNNFlags are the mnn runtime's own flags.
type MNNFlags struct {
	Backend   string // --backend (cpu, opencl, metal...)
	Precision string // --precision (low, normal, high)
	Memory    string // --memory-mode (low, normal, high)
}

func (f *MNNFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Backend, "backend", f.Backend, "MNN backend")
	fs.StringVar(&f.Precision, "precision", f.Precision, "MNN precision: low, normal, high")
	fs.StringVar(&f.Memory, "memory-mode", f.Memory, "MNN memory mode: low, normal, high")
}

func (f *MNNFlags) Validate(c Common) error {
	if c.Model == "" {
		return errors.New("--model is required for --runtime mnn (a package directory or its config.json)")
	}
	return nil
}

func (f *MNNFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	return mnn.Open(ctx, c.Model, f.Options(c, nil))
}

// Options maps the flags (and extra MNN config keys, which may be nil) to
// mnn.Options.
func (f *MNNFlags) Options(c Common, extra map[string]any) mnn.Options {
	return mnn.Options{
		Threads: c.Threads, Backend: f.Backend, Precision: f.Precision, Memory: f.Memory,
		Workers: c.Workers, Config: extra,
		ChatTemplate: c.ChatTemplate, ChatTemplateSource: c.ChatTemplateSource, Thinking: c.Thinking, TemplateNow: c.TemplateNow,
	}
}

func (f *MNNFlags) Model(c Common) (results.Model, error) { return LocalModel(c.Model) }
