package mc

import (
	"context"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// BenchmarkPrompt renders the generation request of every MMLU and CMMLU
// question (5-shot, chat and raw), as a run or a replay does once per
// sample, and reports prompts per second and allocations per prompt.
func BenchmarkPrompt(b *testing.B) {
	root := dataDir(b)
	for _, task := range []*Task{MMLU(), CMMLU()} {
		d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: -1})
		if err != nil {
			b.Fatal(err)
		}
		for _, chat := range []bool{true, false} {
			name := task.Info().Name + "/raw"
			if chat {
				name = task.Info().Name + "/chat"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				cfg := evals.PromptConfig{NumFewshot: -1, Chat: chat}
				n := 0
				for b.Loop() {
					for _, s := range d.Samples {
						if _, err := task.Prompt(d, s, cfg); err != nil {
							b.Fatal(err)
						}
					}
					n += len(d.Samples)
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "prompts/s")
			})
		}
	}
}
