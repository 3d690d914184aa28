package taskfile

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// BenchmarkLoadFewShot loads lm-eval's mmlu_anatomy task file with 5-shot
// prompts over the converted shared data (8 test documents, 5 dev), which
// renders every prompt: the cost per document of a task file.
func BenchmarkLoadFewShot(b *testing.B) {
	root := b.TempDir()
	writeLMEvalData(b, root)
	task, err := Parse(filepath.Join("testdata", "lmeval", "tasks", "mmlu", "default", "mmlu_anatomy.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: 5, Seed: 1234})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(d.Samples)), "docs/op")
	}
}
