package runner

import (
	"slices"

	"github.com/pocketeval/pocketeval/runtime"
)

// recordedGen is the copy of a request's generation settings that its
// sample record keeps (samples/<task>.jsonl "gen"), so that one sample
// can be rerun with exactly what it was sent.
func recordedGen(g runtime.GenConfig) *runtime.GenConfig {
	g.Stop = slices.Clone(g.Stop)
	return &g
}
