package drivers

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

// replayDriver serves saved predictions (--predictions) as a runtime; the
// runner checks them against the requests before generating.
func replayDriver() Driver {
	return Driver{
		Name:     "replay",
		Summary:  "saved predictions (--predictions FILE) scored as if generated now",
		Caps:     Caps{Instant: true},
		NewFlags: func() Flags { return &replayFlags{} },
	}
}

type replayFlags struct {
	Predictions string // --predictions FILE
}

func (f *replayFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Predictions, "predictions", f.Predictions, "predictions file for --runtime replay")
}

func (f *replayFlags) Validate(c Common) error {
	if f.Predictions == "" {
		return errors.New("--predictions FILE is required for --runtime replay")
	}
	return checkInputFile("--predictions", f.Predictions)
}

func (f *replayFlags) Open(ctx context.Context, c Common) (runtime.Runtime, error) {
	return replay.Open(f.Predictions)
}

// Model is the predictions file, hashed.
func (f *replayFlags) Model(c Common) (Model, error) { return LocalModel(f.Predictions) }

// RawPrompts: human-eval's {"task_id","completion"} lines are completions
// of the raw prompt, so prompts must be rendered in completion mode for
// the scorer to rebuild prompt + completion exactly as human-eval does.
func (f *replayFlags) RawPrompts(rt runtime.Runtime) string {
	r, ok := rt.(*replay.Runtime)
	if !ok {
		return ""
	}
	forms := r.Forms()
	if len(forms) == 0 {
		return ""
	}
	for _, f := range forms {
		if f != replay.FormHumanEval {
			return ""
		}
	}
	return "the predictions are human-eval completions; prompts are rendered in completion mode (--raw)"
}
