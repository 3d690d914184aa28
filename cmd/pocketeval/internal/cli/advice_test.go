package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/gate"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/sandbox"
)

// TestAdvice: the libraries' typed errors name no flag; the command line
// adds the flag that fixes each, and nothing to other errors.
func TestAdvice(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&runner.ConfigMismatchError{Dir: "d", Diffs: []string{"x"}}, "use --force to start over, or choose another --out"},
		{fmt.Errorf("run: %w", &runner.ResumeError{Dir: "d", Err: fmt.Errorf("bad")}), "start over with --force"},
		{&runner.OutNotEmptyError{Dir: "d"}, "choose an empty --out"},
		{&results.LockedError{Dir: "d"}, "choose another --out"},
		{fmt.Errorf("load: %w", &evals.FewShotError{Task: "bbh", Requested: 5, Allowed: []int{3, 0}}), "use --num-fewshot 3 or 0"},
		{&evals.OptionalDataError{Task: "gsm8k", Err: fmt.Errorf("x")}, "datasets download --optional gsm8k"},
		{fmt.Errorf("sandbox: %w: no set-up", sandbox.ErrInsufficientIsolation), "--unsafe-no-sandbox"},
		{&results.IncompleteError{Dir: "d", Status: "running"}, "pocketeval run ... --out d"},
		{fmt.Errorf("cannot compare: %w", &compare.UnlikeError{Diffs: []string{"limit: 5 vs 10"}}), "pass --allow-unlike to compare them anyway"},
		{&compare.AlignmentError{Task: "t", Reason: "2 samples only in A", Unpaired: true}, "compare runs with the same --limit/--shard"},
		{&chattemplate.ToolsNotRenderedError{Param: "tools", Name: "f"}, "e.g. --chat-template"},
		{&evals.MissingDataError{Task: "ifeval_zh", Path: "p", Source: "s", Schema: "IFEval"}, "--dataset-file takes any IFEval-schema file"},
	} {
		if got := withAdvice(tt.err); !strings.HasPrefix(got, tt.err.Error()+"\n") || !strings.Contains(got, tt.want) {
			t.Errorf("withAdvice(%T) = %q, want the error then %q", tt.err, got, tt.want)
		}
		if strings.Contains(tt.err.Error(), "--") {
			t.Errorf("%T's own message names a flag: %q", tt.err, tt.err.Error())
		}
	}
	if got := withAdvice(fmt.Errorf("plain")); got != "plain" {
		t.Errorf("withAdvice(plain) = %q, want the message alone", got)
	}
}

// TestGateHints: the gate's report lines, worded with the CLI's hints,
// read as they did when the gate named the flags itself.
func TestGateHints(t *testing.T) {
	g := &gate.GateResult{Hints: gateHints, Unlike: []string{"limit: 5 vs 10"}, LimitBaseline: 20, LimitCandidate: 20}
	md := g.Markdown()
	for _, want := range []string{
		"**Unlike runs** (compared with --allow-unlike, so the gate fails): limit: 5 vs 10",
		"Limited run (--limit: baseline 20, candidate 20): the first samples of each task only",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	x, err := g.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(x), `message="unlike runs (compared with --allow-unlike)"`) {
		t.Errorf("junit:\n%s", x)
	}
	g.AddBudgets([]gate.BudgetVerdict{{Budget: "decode_tok_s_min", Reason: "not measured: x"}})
	if len(g.Failures) != 1 || g.Failures[0] != "budget decode_tok_s_min: not measured: x" {
		t.Errorf("a reason without a missing measure got a hint: %q", g.Failures)
	}
	p, err := gate.ParsePolicy("gate.yaml", []byte("budgets:\n  energy_j_per_inference_max: 5\n  battery_pct_per_100_max: 1\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	g = &gate.GateResult{Hints: gateHints}
	g.AddBudgets(gate.CheckBudgets(p, nil, nil))
	want := []string{
		"budget energy_j_per_inference_max: not measured: no bench report with energy (bench --energy battery|rapl --json, or energy --json from the device)",
		"budget battery_pct_per_100_max: not measured: no bench report with energy (bench --energy battery --json, or energy --json from the device)",
	}
	if strings.Join(g.Failures, "\n") != strings.Join(want, "\n") {
		t.Errorf("budget failures %q, want %q", g.Failures, want)
	}
	g = &gate.GateResult{Hints: gateHints}
	g.AddBudgets(gate.CheckBudgets(p, []rundir.BenchReport{{Path: "b.json", Report: rundirtest.PocketBench(251, 800, 228, 173, 2.7, false)}}, nil))
	if len(g.Failures) != 1 || !strings.HasSuffix(g.Failures[0], "has energy but no battery capacity (--battery-mah and --battery-volts)") {
		t.Errorf("battery failures %q", g.Failures)
	}
}
