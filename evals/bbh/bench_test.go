package bbh

import (
	"context"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// BenchmarkLoad loads the 27 shared BIG-Bench Hard task files and prompts,
// the task files read by fastExamples (fast) or by encoding/json (json).
func BenchmarkLoad(b *testing.B) {
	root := sharedtest.Datasets(b)
	for _, mode := range []string{"fast", "json"} {
		b.Run(mode, func(b *testing.B) {
			defer func(old bool) { jsonOnly = old }(jsonOnly)
			jsonOnly = mode == "json"
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New().Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: -1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
