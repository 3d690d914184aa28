package code

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// BenchmarkScoreHumanEvalCanonical scores canonical solutions (completion
// mode, calibrated limits, reference times cached after the first pass)
// through the sandbox, two programs at a time (the machine's cores), and
// reports programs per second.
func BenchmarkScoreHumanEvalCanonical(b *testing.B) {
	ex, kind := codetest.Pool(b)
	b.Logf("executor: %s", kind)
	task := HumanEval(Options{}).WithExecutor(ex)
	ds := load(b, task)
	var next atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for range work {
				s := ds.Samples[int(next.Add(1))%len(ds.Samples)]
				sc, err := task.Score(context.Background(), s, evals.Output{Text: s.Target, Prompt: s.Input})
				if err != nil || sc.Values["pass"] != 1 {
					b.Errorf("%s: %v %v", s.ID, err, sc.Details)
				}
			}
		})
	}
	for b.Loop() {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "programs/s")
}
