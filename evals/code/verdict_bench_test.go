package code

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// BenchmarkVerdictModes scores HumanEval's canonical solutions two at a
// time (the machine's cores) in each verdict mode, under the same fixed
// limits: official through a pool of two workers, isolated through a pool
// of four (each isolated program holds two), and reports programs per
// second. The load average is logged next to the numbers.
func BenchmarkVerdictModes(b *testing.B) {
	official, kind := codetest.Pool(b)
	pool4, err := sandbox.New(sandbox.Config{Workers: 4, BaseUID: 800_000_000 + (os.Getpid()%2048)*(1<<16),
		Unsafe: kind == codetest.KindUnsafe})
	if err != nil {
		b.Fatal(err)
	}
	defer pool4.Close()
	for _, m := range []struct {
		name string
		ex   sandbox.Executor
	}{{VerdictOfficial, official}, {VerdictIsolated, isolated.New(pool4, 2, sandbox.Limits{})}} {
		b.Run(m.name, func(b *testing.B) {
			// Fixed limits: no reference solution is measured while timing.
			task, err := HumanEval(Options{Limits: sandbox.Limits{CPUTime: DefaultTimeLimitFloor}}).WithExecutor(m.ex).WithVerdictMode(m.name)
			if err != nil {
				b.Fatal(err)
			}
			ds := load(b, task)
			if la, err := os.ReadFile("/proc/loadavg"); err == nil {
				b.Logf("load average before: %s", strings.TrimSpace(string(la)))
			}
			var next atomic.Int64
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
			if la, err := os.ReadFile("/proc/loadavg"); err == nil {
				b.Logf("load average after: %s", strings.TrimSpace(string(la)))
			}
		})
	}
}
