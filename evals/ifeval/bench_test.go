package ifeval

import (
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// BenchmarkLoadEN loads the 541 IFEval prompts (parsing and checking every
// record, building its checkers), single-threaded.
func BenchmarkLoadEN(b *testing.B) {
	loadTask(b, EN, evals.LoadConfig{}) // langdetect's model, once
	b.ResetTimer()
	for range b.N {
		loadTask(b, EN, evals.LoadConfig{})
	}
}
