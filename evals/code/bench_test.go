package code

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// BenchmarkScoreHumanEvalCanonical scores canonical solutions (completion
// mode) through each available executor, two programs at a time (the
// machine's cores), and reports programs per second.
func BenchmarkScoreHumanEvalCanonical(b *testing.B) {
	sub, err := codetest.New(codetest.Config{Workers: 2})
	if err != nil {
		b.Skip(err)
	}
	execs := map[string]sandbox.Executor{codetest.KindSubprocess: sub}
	if pool, err := sandbox.New(sandbox.Config{Workers: 2, BaseUID: poolBaseUID()}); err == nil {
		defer pool.Close()
		execs[codetest.KindSandbox] = pool
	} else {
		b.Logf("sandbox unavailable: %v", err)
	}
	for name, ex := range execs {
		b.Run(name, func(b *testing.B) {
			task := HumanEval(Options{Limits: testLimits}).WithExecutor(ex)
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
		})
	}
}
