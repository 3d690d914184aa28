package runner

import (
	"context"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// instantRuntime answers at once, so a run's time is the harness's own:
// rendering, scoring, the fsynced sample line, resume bookkeeping and the
// summary.
type instantRuntime struct{}

func (instantRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return runtime.Response{Text: "answer 1", FinishReason: runtime.FinishStop, PromptTokens: 10, CompletionTokens: 2}, nil
}
func (instantRuntime) Close() error { return nil }

// BenchmarkHarnessOverhead reports the harness cost per request (ns/req)
// at concurrency 1 and 4.
func BenchmarkHarnessOverhead(b *testing.B) {
	for _, c := range []int{1, 4} {
		b.Run("concurrency="+string(rune('0'+c)), func(b *testing.B) {
			const n = 500
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dir := b.TempDir()
				o := Options{Tasks: []evals.Task{fakeTask{"alpha", n}}, Runtime: instantRuntime{}, RuntimeName: "instant",
					OutDir: dir, Concurrency: c, NumFewshot: -1, Chat: true}
				if _, err := Run(context.Background(), o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/req")
		})
	}
}
