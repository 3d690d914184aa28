package code

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
)

// TestVerdictModes scores the same answers in both verdict modes: honest
// solutions (canonical, MBPP references, MBPP 126 whose function is
// called sum) pass in both, wrong ones fail in both, and an answer that
// forges passes in the official mode (unittest.mock.ANY, always equal
// through the standard library's __eq__) fails everywhere in the isolated
// one.
func TestVerdictModes(t *testing.T) {
	t.Parallel()
	official := HumanEval(Options{}).WithExecutor(pool(t))
	iso, err := official.WithVerdictMode(VerdictIsolated)
	if err != nil {
		t.Fatal(err)
	}
	if got := iso.Info().Version; got != "1+isolated-verdicts" {
		t.Errorf("isolated task version %q", got)
	}
	if _, ok := iso.exec.(codescore.IsolatedRunner); !ok {
		t.Fatalf("isolated task executor %T runs no isolated programs", iso.exec)
	}
	ds := load(t, official)
	samples := every(ds.Samples, 40, 3)
	answers := []struct {
		name       string
		out        func(evals.Sample) evals.Output
		official   float64 // for mock.ANY: passes some (not checked one by one)
		isolatedOK float64
	}{
		{"canonical", func(s evals.Sample) evals.Output { return evals.Output{Text: s.Target, Prompt: s.Input} }, 1, 1},
		{"wrong", func(s evals.Sample) evals.Output { return evals.Output{Text: "    return None\n", Prompt: s.Input} }, 0, 0},
		{"mock.ANY", func(s evals.Sample) evals.Output {
			return evals.Output{Text: "    from unittest import mock\n    return mock.ANY\n", Prompt: s.Input}
		}, 1, 0},
	}
	for _, a := range answers {
		offScores := scoreAll(t, official, samples, a.out)
		isoScores := scoreAll(t, iso, samples, a.out)
		forged := 0
		for i, s := range samples {
			if a.official != a.isolatedOK {
				// mock.ANY passes the official mode where the tests only
				// compare with ==; count those.
				forged += int(offScores[i].Values["pass"])
			} else if got := offScores[i].Values["pass"]; got != a.official {
				t.Errorf("%s %s official: pass %v (%v %v), want %v", a.name, s.ID, got, offScores[i].Details["verdict"], offScores[i].Details["reason"], a.official)
			}
			if got := isoScores[i].Values["pass"]; got != a.isolatedOK {
				t.Errorf("%s %s isolated: pass %v (%v %v), want %v\n%v", a.name, s.ID, got, isoScores[i].Details["verdict"], isoScores[i].Details["reason"], a.isolatedOK, isoScores[i].Details["stderr"])
			}
			if isoScores[i].Details["verdict_mode"] != VerdictIsolated {
				t.Errorf("%s %s: details verdict_mode %v", a.name, s.ID, isoScores[i].Details["verdict_mode"])
			}
		}
		if a.official != a.isolatedOK && forged == 0 {
			t.Errorf("%s: passed no problem in the official mode; the test no longer shows the gap it guards", a.name)
		}
	}

	mbpp, err := MBPP(Options{}).WithExecutor(pool(t)).WithVerdictMode(VerdictIsolated)
	if err != nil {
		t.Fatal(err)
	}
	mds := load(t, mbpp)
	var picked []evals.Sample
	for i, s := range mds.Samples {
		if s.ID == "126" || i%50 == 0 {
			picked = append(picked, s)
		}
	}
	for i, sc := range scoreAll(t, mbpp, picked, func(s evals.Sample) evals.Output { return evals.Output{Text: s.Target} }) {
		if sc.Values["pass"] != 1 {
			t.Errorf("mbpp %s reference, isolated: %v %v\n%v", picked[i].ID, sc.Details["verdict"], sc.Details["reason"], sc.Details["stderr"])
		}
	}
}

// TestVerdictModeSetup: Setup gives the isolated mode a pool of twice the
// workers (each isolated program holds two) and records the mode.
func TestVerdictModeSetup(t *testing.T) {
	t.Parallel()
	if _, err := HumanEval(Options{}).WithVerdictMode("strict"); err == nil || !strings.Contains(err.Error(), "official or isolated") {
		t.Errorf("bad mode: err = %v", err)
	}
	var gotWorkers int
	task, err := HumanEval(Options{NewExecutor: func(ctx context.Context, env evals.Env) (sandbox.Executor, io.Closer, error) {
		gotWorkers = env.Workers
		return &countingExecutor{res: sandbox.Result{Verdict: sandbox.Pass}}, nil, nil
	}}).WithVerdictMode(VerdictIsolated)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]any{}
	env := testEnv(recorded)
	env.Workers = 3
	setUp, _, err := task.Setup(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if gotWorkers != 6 {
		t.Errorf("pool workers %d, want 6 for 3 isolated programs at once", gotWorkers)
	}
	if _, ok := setUp.(*Task).exec.(*isolated.Executor); !ok {
		t.Errorf("executor %T, want an isolated.Executor", setUp.(*Task).exec)
	}
	rec, _ := recorded["code:humaneval"].(map[string]any)
	vm, _ := rec["verdict_mode"].(map[string]any)
	if vm["mode"] != VerdictIsolated {
		t.Errorf("manifest record verdict_mode = %v", rec["verdict_mode"])
	}
}

// TestVerdictModeOption: the isolated mode is the task's one option, and
// the task rebuilt from its options judges in that mode (what merge does).
func TestVerdictModeOption(t *testing.T) {
	t.Parallel()
	if o := HumanEval(Options{}).TaskOptions(); o != nil {
		t.Errorf("official options %v, want none", o)
	}
	iso, err := HumanEval(Options{}).WithVerdictMode(VerdictIsolated)
	if err != nil {
		t.Fatal(err)
	}
	opts := iso.TaskOptions()
	if len(opts) != 1 || opts[OptionVerdictMode] != VerdictIsolated {
		t.Fatalf("isolated options %v", opts)
	}
	back, err := HumanEval(Options{}).WithTaskOptions(opts)
	if err != nil || back.Info().Version != iso.Info().Version || back.(*Task).VerdictMode() != VerdictIsolated {
		t.Errorf("WithTaskOptions(%v) = %v, %v", opts, back, err)
	}
	for _, bad := range []map[string]string{{"mode": "isolated"}, {OptionVerdictMode: "strict"}} {
		if _, err := HumanEval(Options{}).WithTaskOptions(bad); err == nil {
			t.Errorf("WithTaskOptions(%v) accepted", bad)
		}
	}
}
