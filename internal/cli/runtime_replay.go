package cli

import (
	"context"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

// openReplay opens a predictions file (--predictions) as a runtime. The
// runner should call (*replay.Runtime).CheckKnown with the keys of every
// sample before generating, and report Unused() afterwards.
func openReplay(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	if o.Predictions == "" {
		return nil, FlagErrorf("--predictions FILE is required for --runtime replay")
	}
	return replay.Open(o.Predictions)
}
