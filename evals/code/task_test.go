package code

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/golden"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// pool is the test binary's sandbox pool (isolated where the machine
// allows it, else the same pool in unsafe mode).
func pool(t *testing.T) sandbox.Executor {
	t.Helper()
	p, _ := codetest.Pool(t)
	return p
}

// every returns every k-th sample from the first-th: the package's tests
// check a spread of problems; `pocketeval sandbox conformance` runs all of
// them, once, in CI.
func every(samples []evals.Sample, k, first int) []evals.Sample {
	var out []evals.Sample
	for i := first; i < len(samples); i += k {
		out = append(out, samples[i])
	}
	return out
}

func load(t testing.TB, task *Task) *evals.Dataset {
	t.Helper()
	ds, err := task.Load(context.Background(), evals.LoadConfig{DataDir: sharedtest.Datasets(t), NumFewshot: -1})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return ds
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		task      *Task
		n         int
		first     string
		last      string
		file      string
		sha256    string
		wantShots int
	}{
		{HumanEval(Options{}), 164, "HumanEval/0", "HumanEval/163", "humaneval/HumanEval.jsonl.gz",
			"b796127e635a67f93fb35c04f4cb03cf06f38c8072ee7cee8833d7bee06979ef", 0},
		{MBPP(Options{}), 257, "11", "479", "mbpp/sanitized-mbpp.json",
			"7fec016546acaee11dbe14f9f0bb670e59f41919f7b522a59fba34871da78551", 3},
		{MBPPFull(Options{}), 500, "11", "510", "mbpp/mbpp.jsonl",
			"ccf64ceae9c5403bf50a044cb6d505bfd2a2963ee58338ba268fd65beab92a9f", 3},
	}
	for _, tt := range tests {
		t.Run(tt.task.Info().Name, func(t *testing.T) {
			t.Parallel()
			ds := load(t, tt.task)
			if len(ds.Samples) != tt.n {
				t.Fatalf("%d samples, want %d", len(ds.Samples), tt.n)
			}
			if ds.Samples[0].ID != tt.first || ds.Samples[tt.n-1].ID != tt.last {
				t.Errorf("ids run %s..%s, want %s..%s", ds.Samples[0].ID, ds.Samples[tt.n-1].ID, tt.first, tt.last)
			}
			if got := ds.Files[tt.file]; got != tt.sha256 {
				t.Errorf("Files[%s] = %q, want %s", tt.file, got, tt.sha256)
			}
			if len(ds.Warnings) != 0 {
				t.Errorf("warnings: %v", ds.Warnings)
			}
			seen := map[string]bool{}
			for _, s := range ds.Samples {
				if seen[s.ID] {
					t.Errorf("duplicate id %s", s.ID)
				}
				seen[s.ID] = true
				if e, _ := s.Meta[MetaEntryPoint].(string); e == "" {
					t.Errorf("sample %s: no entry point", s.ID)
				}
			}
			if x, ok := ds.Extra.(*mbppData); tt.wantShots > 0 && (!ok || len(x.shots) != tt.wantShots) {
				t.Errorf("few-shot exemplars: %+v", ds.Extra)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	he := `{"task_id": "HumanEval/0", "prompt": "def f():\n", "entry_point": "f", "canonical_solution": "    return 1\n", "test": "def check(c):\n    assert c() == 1\n"}`
	tests := []struct {
		name    string
		task    *Task
		file    string
		wantErr string
	}{
		{"missing file names source", HumanEval(Options{}), filepath.Join(dir, "nope.jsonl"), "openai/human-eval"},
		{"bad json line", HumanEval(Options{}), write("bad.jsonl", he+"\n{oops\n"), "bad.jsonl:2"},
		{"missing field", HumanEval(Options{}), write("nofield.jsonl", he+"\n"+`{"task_id": "HumanEval/1", "prompt": "x", "entry_point": "f"}`+"\n"), "nofield.jsonl:2:test: missing"},
		{"duplicate id", HumanEval(Options{}), write("dup.jsonl", he+"\n"+he+"\n"), "dup.jsonl:2:task_id"},
		{"mbpp array missing code", MBPP(Options{}), write("m.json", "[\n  {\"task_id\": 11, \"prompt\": \"x\", \"test_list\": [\"assert f()\"]}\n]"), "m.json:2:code: missing"},
		{"mbpp jsonl missing tests", MBPPFull(Options{}), write("m.jsonl", `{"task_id": 11, "text": "x", "code": "def f(): pass"}`+"\n"), "m.jsonl:1:test_list"},
		{"mbpp no test split", MBPPFull(Options{}), write("m2.jsonl", `{"task_id": 1, "text": "x", "code": "def f(): pass", "test_list": ["assert f() is None"]}`+"\n"), "no records with task_id 11-510"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := tt.task.Load(context.Background(), evals.LoadConfig{DatasetFile: tt.file})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Load error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestPromptGolden renders each task's prompt in both modes for its first
// sample and compares with testdata/<task>_<mode>.golden (-update rewrites).
func TestPromptGolden(t *testing.T) {
	t.Parallel()
	for _, task := range []*Task{HumanEval(Options{}), MBPP(Options{}), MBPPFull(Options{})} {
		ds := load(t, task)
		for _, chat := range []bool{false, true} {
			mode := "completion"
			if chat {
				mode = "chat"
			}
			name := task.Info().Name + "_" + mode
			t.Run(name, func(t *testing.T) {
				req, err := task.Prompt(ds, ds.Samples[0], evals.PromptConfig{NumFewshot: -1, Chat: chat, Gen: runtime.GenConfig{Stop: []string{"</s>"}}})
				if err != nil {
					t.Fatal(err)
				}
				if req.IsChat() != chat || req.ID != ds.Samples[0].ID || req.Task != task.Info().Name {
					t.Errorf("request header: chat=%v id=%q task=%q", req.IsChat(), req.ID, req.Task)
				}
				golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(renderRequest(req)))
			})
		}
	}
}

func renderRequest(req runtime.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stop: %q\n", req.Gen.Stop)
	if !req.IsChat() {
		b.WriteString("--- prompt ---\n")
		b.WriteString(req.Prompt)
		b.WriteString("\n--- end ---\n")
		return b.String()
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "--- %s ---\n%s\n", m.Role, m.Content)
	}
	b.WriteString("--- end ---\n")
	return b.String()
}

func TestPromptFewshot(t *testing.T) {
	t.Parallel()
	task := MBPP(Options{})
	ds := load(t, task)
	s := ds.Samples[0]
	check := func(cfg evals.PromptConfig, wantMsgs, wantBegins int) {
		t.Helper()
		req, err := task.Prompt(ds, s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(req.Messages); got != wantMsgs {
			t.Errorf("%+v: %d messages, want %d", cfg, got, wantMsgs)
		}
		if got := strings.Count(req.Prompt, "[BEGIN]"); got != wantBegins {
			t.Errorf("%+v: %d [BEGIN] in prompt, want %d", cfg, got, wantBegins)
		}
	}
	check(evals.PromptConfig{NumFewshot: -1}, 0, 4)
	check(evals.PromptConfig{NumFewshot: 0}, 0, 1)
	check(evals.PromptConfig{NumFewshot: 1}, 0, 2)
	check(evals.PromptConfig{NumFewshot: -1, Chat: true}, 1, 0)
	check(evals.PromptConfig{NumFewshot: 2, Chat: true}, 5, 0)
	if _, err := task.Prompt(ds, s, evals.PromptConfig{NumFewshot: 4}); err == nil {
		t.Error("4 exemplars requested, 3 available: no error")
	}
}

// scoreAll scores out(sample) for every sample concurrently and returns the
// scores in dataset order.
func scoreAll(t *testing.T, task *Task, samples []evals.Sample, out func(evals.Sample) evals.Output) []evals.Score {
	t.Helper()
	scores := make([]evals.Score, len(samples))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, s := range samples {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			sc, err := task.Score(context.Background(), s, out(s))
			if err != nil {
				t.Errorf("Score %s: %v", s.ID, err)
				return
			}
			scores[i] = sc
		})
	}
	wg.Wait()
	return scores
}

// TestHumanEvalCanonicalSolutions: canonical solutions pass, in completion
// mode (prompt + canonical solution) and in chat mode (prompt + solution as
// a whole function in a fenced block, with prose around it), under the
// default calibrated time limits.
func TestHumanEvalCanonicalSolutions(t *testing.T) {
	t.Parallel()
	task := HumanEval(Options{}).WithExecutor(pool(t))
	ds := load(t, task)
	samples := every(ds.Samples, 8, 0)
	completion := scoreAll(t, task, samples, func(s evals.Sample) evals.Output {
		return evals.Output{Text: s.Target, Prompt: s.Input}
	})
	chat := scoreAll(t, task, samples, func(s evals.Sample) evals.Output {
		text := "Here is the completed function:\n\n```python\n" + s.Input + s.Target + "\n```\n\nIt passes the examples."
		return evals.Output{Text: text, Prompt: "<|user|>Complete the following Python function…<|assistant|>"}
	})
	bare := scoreAll(t, task, samples, func(s evals.Sample) evals.Output {
		return evals.Output{Text: "Sure. Here it is:\n" + s.Input + s.Target + "\n\nThis solution runs in linear time."}
	})
	for i, s := range samples {
		for _, c := range []struct {
			name, mode string
			sc         evals.Score
		}{{"completion", "completion", completion[i]}, {"fenced", "chat", chat[i]}, {"bare", "chat", bare[i]}} {
			if c.sc.Values["pass"] != 1 {
				t.Errorf("%s (%s): canonical solution did not pass: %v %v\n%v", s.ID, c.name, c.sc.Details["verdict"], c.sc.Details["reason"], c.sc.Details["stderr"])
			}
			if c.sc.Details["mode"] != c.mode {
				t.Errorf("%s (%s): read in mode %v, want %s", s.ID, c.name, c.sc.Details["mode"], c.mode)
			}
			if ms, _ := c.sc.Details["cpu_limit_ms"].(int64); ms < DefaultTimeLimitFloor.Milliseconds() {
				t.Errorf("%s (%s): cpu limit %v ms, below the floor", s.ID, c.name, c.sc.Details["cpu_limit_ms"])
			}
		}
	}
}

// TestHumanEvalReplayVerbatim: human-eval predictions ({"task_id",
// "completion"} and results files) run exactly as the official harness runs
// them — no stop-sequence cutting, exec(program, {}) semantics — so each
// completion that restates the prompt, defines helpers, has an
// `if __name__ == "__main__":` block or prints gets the verdict the
// official harness gave it (recorded by testdata/harness_verdicts.py).
func TestHumanEvalReplayVerbatim(t *testing.T) {
	t.Parallel()
	task := HumanEval(Options{})
	ds := load(t, task)
	items, err := officialItems(task, ds, harnessCases, "harness cases")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(harnessCases)), "\n") {
		var c struct{ Name string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		names = append(names, c.Name)
	}
	// The program is human-eval's, byte for byte.
	fe := &countingExecutor{res: sandbox.Result{Verdict: sandbox.Pass}}
	recorded := task.WithExecutor(fe)
	for _, it := range items {
		if _, err := recorded.Score(context.Background(), it.s, it.out); err != nil {
			t.Fatal(err)
		}
		want := it.s.Meta[MetaPrompt].(string) + it.out.Text + "\n" + it.s.Meta[MetaTest].(string) + "\n" + "check(" + it.s.Meta[MetaEntryPoint].(string) + ")"
		if fe.last.Source != want || fe.last.Exec != sandbox.ExecHarness {
			t.Errorf("%s: ran (%s)\n%s\nwant (harness)\n%s", it.s.ID, fe.last.Exec, fe.last.Source, want)
		}
	}
	// And it gets the official verdict, in both verdict modes (a program
	// that kills itself dies of that signal, as the harness's process did).
	live := task.WithExecutor(pool(t))
	iso, err := live.WithVerdictMode(VerdictIsolated)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []*Task{live, iso} {
		scores := make([]evals.Score, len(items))
		var wg sync.WaitGroup
		for i, it := range items {
			wg.Go(func() {
				sc, err := mode.Score(context.Background(), it.s, it.out)
				if err != nil {
					t.Errorf("%s: %v", names[i], err)
				}
				scores[i] = sc
			})
		}
		wg.Wait()
		for i, it := range items {
			got, sig := scores[i].Details["verdict"], scores[i].Details["signal"]
			if mode.VerdictMode() == VerdictIsolated && got == string(sandbox.Timeout) && forksThroughLibc(it.out.Text) {
				// A known difference of the isolated mode: the candidate's
				// process runs an idle watchdog thread, and a child forked
				// by libc.fork (which skips CPython's after-fork
				// handling) can find the GIL held by that thread and never
				// return, so the parent's waitpid ends at the idle limit.
				// The official harness has no second thread. See
				// docs/sandbox.md, "Known differences".
				t.Logf("%s (isolated verdicts): %v (%v): the libc.fork difference", names[i], got, scores[i].Details["reason"])
				continue
			}
			if got != string(it.want) || (it.wantSignal != "" && sig != it.wantSignal) {
				t.Errorf("%s (%s verdicts): verdict %v %v (%v), official %s %s", names[i], mode.VerdictMode(), got, sig, scores[i].Details["reason"], it.want, it.wantSignal)
			}
			if scores[i].Extracted != it.out.Text {
				t.Errorf("%s: completion changed to %q", names[i], scores[i].Extracted)
			}
		}
	}
}

// TestSweep runs the conformance sweep's first items of every set (the
// whole sweep is `pocketeval sandbox conformance`, run once in CI).
func TestSweep(t *testing.T) {
	t.Parallel()
	rep, err := Sweep(context.Background(), SweepOptions{Executor: pool(t), DataDir: sharedtest.Datasets(t),
		ConformanceDir: sharedtest.Conformance(t), Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range rep.Sets {
		if set.Skipped != "" {
			t.Errorf("set %s skipped: %s", set.Name, set.Skipped)
		}
		if set.N == 0 && set.Skipped == "" {
			t.Errorf("set %s is empty", set.Name)
		}
	}
	if len(rep.Sets) != len(SweepSets) {
		t.Errorf("%d sets, want %d", len(rep.Sets), len(SweepSets))
	}
	for _, m := range rep.Mismatches() {
		t.Errorf("%s %s: %s (%s), want %s", m.Set, m.ID, m.Verdict, m.Reason, m.Want)
	}
	if d := CompareSweeps(rep, rep); len(d) != 0 {
		t.Errorf("a sweep differs from itself: %v", d)
	}
	other := *rep
	other.Results = append([]SweepResult(nil), rep.Results...)
	other.Results[0].Verdict = sandbox.Error
	if d := CompareSweeps(rep, &other); len(d) != 1 {
		t.Errorf("one changed verdict: differences %v", d)
	}
}

// TestMBPPReferenceSolutions: reference solutions pass their own asserts,
// on both splits, given as a raw completion (completion mode) and inside a
// fenced block (chat mode).
func TestMBPPReferenceSolutions(t *testing.T) {
	t.Parallel()
	for _, task := range []*Task{MBPP(Options{}), MBPPFull(Options{})} {
		task := task.WithExecutor(pool(t))
		t.Run(task.Info().Name, func(t *testing.T) {
			t.Parallel()
			// From the 4th: the spread misses MBPP 123, whose reference
			// needs about 3 s of CPU (the conformance command runs it).
			samples := every(load(t, task).Samples, 16, 3)
			raw := scoreAll(t, task, samples, func(s evals.Sample) evals.Output {
				return evals.Output{Text: s.Target + "\n[DONE]"}
			})
			fenced := scoreAll(t, task, samples, func(s evals.Sample) evals.Output {
				return evals.Output{Text: "Solution:\n```python\n" + s.Target + "\n```\nDone."}
			})
			for i, s := range samples {
				for mode, sc := range map[string]evals.Score{"raw": raw[i], "fenced": fenced[i]} {
					if sc.Values["pass"] != 1 {
						t.Errorf("task %s (%s): %v %v\n%v", s.ID, mode, sc.Details["verdict"], sc.Details["reason"], sc.Details["stderr"])
					}
				}
			}
		})
	}
}

func TestScoreWithoutExecutor(t *testing.T) {
	t.Parallel()
	s := evals.Sample{ID: "x", Meta: map[string]any{MetaPrompt: "def f():\n", MetaTest: "", MetaEntryPoint: "f"}}
	if _, err := HumanEval(Options{}).Score(context.Background(), s, evals.Output{Text: "    return 1"}); !errors.Is(err, ErrNoExecutor) {
		t.Errorf("Score without executor: err = %v, want ErrNoExecutor", err)
	}
}

func TestScoreNoCode(t *testing.T) {
	t.Parallel()
	fe := &countingExecutor{}
	task := MBPP(Options{}).WithExecutor(fe)
	s := evals.Sample{ID: "11", Meta: map[string]any{MetaTests: []string{"assert f(1) == 1"}, MetaEntryPoint: "f"}}
	sc, err := task.Score(context.Background(), s, evals.Output{Text: "I cannot help with that."})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Values["pass"] != 0 || !sc.ExtractionFailed || fe.n != 0 {
		t.Errorf("score %+v, executor runs %d; want pass 0, extraction failed, no run", sc, fe.n)
	}
}

type countingExecutor struct {
	mu   sync.Mutex
	n    int
	last sandbox.Program
	res  sandbox.Result
}

func (c *countingExecutor) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	c.last = p
	return c.res, nil
}

func TestScoreDetailsAndLimits(t *testing.T) {
	t.Parallel()
	fe := &countingExecutor{res: sandbox.Result{Verdict: sandbox.Fail, ExitCode: 1, Stderr: "Traceback\nAssertionError\n"}}
	lim := sandbox.Limits{CPUTime: 5e9}
	task := HumanEval(Options{Limits: lim}).WithExecutor(fe)
	s := evals.Sample{ID: "HumanEval/x", Input: "def f():\n", Meta: map[string]any{
		MetaPrompt: "def f():\n", MetaTest: "def check(c):\n    assert c() == 2", MetaEntryPoint: "f"}}
	sc, err := task.Score(context.Background(), s, evals.Output{Text: "    return 1\n\ndef g():\n    pass", Prompt: "def f():\n"})
	if err != nil {
		t.Fatal(err)
	}
	// Verbatim: a completion is never cut at the stop sequences.
	wantProgram := "def f():\n    return 1\n\ndef g():\n    pass\ndef check(c):\n    assert c() == 2\ncheck(f)"
	if fe.last.Source != wantProgram || fe.last.Exec != sandbox.ExecHarness {
		t.Errorf("program (%s):\n%s\nwant (harness):\n%s", fe.last.Exec, fe.last.Source, wantProgram)
	}
	if fe.last.Limits != lim {
		t.Errorf("limits %+v, want %+v", fe.last.Limits, lim)
	}
	if sc.Details["verdict"] != "fail" || sc.Details["reason"] != "AssertionError" || sc.Details["mode"] != "completion" || sc.Extracted != "    return 1\n\ndef g():\n    pass" {
		t.Errorf("score %+v", sc)
	}
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	var results []evals.SampleResult
	add := func(id string, passes ...int) {
		for rep, p := range passes {
			results = append(results, evals.SampleResult{
				Sample: evals.Sample{ID: id},
				Score: evals.Score{Values: map[string]float64{"pass": float64(p)}, Extracted: fmt.Sprintf("    return %d", rep),
					Details: map[string]any{"verdict": map[int]string{0: "fail", 1: "pass"}[p]}},
				Repeat: rep,
			})
		}
	}
	ten := func(c int) []int {
		out := make([]int, 10)
		for i := range c {
			out[i] = 1
		}
		return out
	}
	add("a", ten(5)...)
	add("b", ten(0)...)
	add("c", ten(1)...)
	agg := HumanEval(Options{}).Aggregate(results)
	if got, want := agg.Metrics["pass@1"], (0.5+0+0.1)/3; abs(got-want) > 1e-12 {
		t.Errorf("pass@1 = %v, want %v", got, want)
	}
	if got, want := agg.Metrics["pass@10"], 2.0/3; abs(got-want) > 1e-12 {
		t.Errorf("pass@10 = %v, want %v", got, want)
	}
	if _, ok := agg.Metrics["pass@100"]; ok {
		t.Error("pass@100 reported with n=10")
	}
	if len(agg.Notes) != 2 || !strings.Contains(agg.Notes[0], "n=10") || agg.Notes[1] != "verdicts: fail 24, pass 6" {
		t.Errorf("notes %q", agg.Notes)
	}
	// Identical repeats are flagged.
	var same []evals.SampleResult
	for rep := range 3 {
		same = append(same, evals.SampleResult{Sample: evals.Sample{ID: "a"}, Repeat: rep,
			Score: evals.Score{Values: map[string]float64{"pass": 1}, Extracted: "    return 1"}})
	}
	if notes := HumanEval(Options{}).Aggregate(same).Notes; len(notes) != 2 || !strings.HasPrefix(notes[1], "warning: the 3 samples") {
		t.Errorf("identical repeats: notes %q", notes)
	}
	greedy := HumanEval(Options{}).Aggregate(results[:1])
	if greedy.Metrics["pass@1"] != 1 || len(greedy.Metrics) != 1 {
		t.Errorf("greedy aggregate %v", greedy.Metrics)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func TestSetup(t *testing.T) {
	t.Parallel()
	if _, _, err := HumanEval(Options{}).Setup(context.Background(), testEnv(nil)); !errors.Is(err, ErrNoExecutor) {
		t.Errorf("Setup without constructor: err = %v, want ErrNoExecutor", err)
	}
	fe := &countingExecutor{res: sandbox.Result{Verdict: sandbox.Pass}}
	closed := false
	var gotEnv evals.Env
	task := MBPP(Options{NewExecutor: func(ctx context.Context, env evals.Env) (sandbox.Executor, io.Closer, error) {
		gotEnv = env
		env.Record("sandbox", "test")
		return fe, closerFunc(func() error { closed = true; return nil }), nil
	}})
	recorded := map[string]any{}
	env := testEnv(recorded)
	env.UnsafeNoSandbox = true
	env.Workers = 3
	setUp, closer, err := task.Setup(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if !gotEnv.UnsafeNoSandbox || gotEnv.Workers != 3 || recorded["sandbox"] != "test" {
		t.Errorf("constructor saw env %+v, recorded %v", gotEnv, recorded)
	}
	s := evals.Sample{ID: "11", Meta: map[string]any{MetaTests: []string{"assert f(1) == 1"}, MetaEntryPoint: "f"}}
	sc, err := setUp.Score(context.Background(), s, evals.Output{Text: "def f(x):\n    return x"})
	if err != nil || sc.Values["pass"] != 1 || fe.n != 1 {
		t.Errorf("score after Setup: %+v, %v, runs %d", sc, err, fe.n)
	}
	if err := closer.Close(); err != nil || !closed {
		t.Errorf("closer: err %v, closed %v", err, closed)
	}
	failing := HumanEval(Options{NewExecutor: func(context.Context, evals.Env) (sandbox.Executor, io.Closer, error) {
		return nil, nil, errSetup
	}})
	if _, _, err := failing.Setup(context.Background(), testEnv(nil)); !errors.Is(err, errSetup) {
		t.Errorf("Setup error not wrapped: %v", err)
	}
}

var errSetup = errors.New("insufficient isolation")

func testEnv(recorded map[string]any) evals.Env {
	return evals.Env{
		Record: func(k string, v any) {
			if recorded != nil {
				recorded[k] = v
			}
		},
		Warn: func(string, ...any) {},
	}
}

func TestHumanEvalModeWithoutRenderedPrompt(t *testing.T) {
	t.Parallel()
	check := func(text string, wantCompletion bool) {
		t.Helper()
		got := humanEvalCompletionMode(evals.Output{Text: text, Raw: text}, "def f():\n", "f")
		if got != wantCompletion {
			t.Errorf("completion mode for %q = %v, want %v", text, got, wantCompletion)
		}
	}
	check("    return 1\n", true)
	check("    x = 1\n    return x", true)
	check("```python\ndef f():\n    return 1\n```", false)
	check("def f():\n    return 1", false)
	check("<think>hm</think>    return 1", false)
	// With a rendered prompt the prompt decides.
	if !humanEvalCompletionMode(evals.Output{Text: "def f():\n    return 1", Prompt: "def f():\n"}, "def f():\n", "f") {
		t.Error("raw prompt equal to the HumanEval prompt not read as completion mode")
	}
	if humanEvalCompletionMode(evals.Output{Text: "    return 1", Prompt: "<|user|>...```<|assistant|>"}, "def f():\n", "f") {
		t.Error("chat prompt read as completion mode")
	}
}

// forksThroughLibc reports whether a completion forks with libc's fork
// rather than os.fork.
func forksThroughLibc(completion string) bool {
	return strings.Contains(completion, "libc.fork()")
}
