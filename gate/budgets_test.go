package gate

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
)

const allBudgets = `budgets:
  decode_tok_s_min: 200
  prefill_tok_s_min: 500
  peak_mem_increment_mb_max: 300
  package_mb_max: 180
  energy_j_per_inference_max: 3.0
  battery_pct_per_100_max: 1.0
`

// junitSuite is what the tests read of the gate's JUnit XML.
type junitSuite struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Cases    []struct {
		Name    string    `xml:"name,attr"`
		Failure *struct{} `xml:"failure"`
	} `xml:"testcase"`
}

// readJUnit renders g as JUnit XML and parses it back.
func readJUnit(t *testing.T, g *GateResult) (junitSuite, []byte) {
	t.Helper()
	x, err := g.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	var s junitSuite
	if err := xml.Unmarshal(x, &s); err != nil {
		t.Fatal(err)
	}
	return s, x
}

func verdicts(vs []BudgetVerdict) map[string]BudgetVerdict {
	m := map[string]BudgetVerdict{}
	for _, v := range vs {
		m[v.Budget] = v
	}
	return m
}

func TestBudgetsPassAndFailEach(t *testing.T) {
	t.Parallel()
	p := gatePolicy(t, allBudgets)
	good := []rundir.BenchReport{{Path: "bench.json", Report: rundirtest.PocketBench(251, 800, 228, 173, 2.7, true)}}
	vs := CheckBudgets(p, good, nil)
	if len(vs) != 6 {
		t.Fatalf("%d verdicts, want 6", len(vs))
	}
	for _, v := range vs {
		if !v.Pass || v.Value == nil {
			t.Errorf("%s: %+v, want a pass", v.Budget, v)
		}
	}
	got := verdicts(vs)
	if v := *got["decode_tok_s_min"].Value; v != 251 {
		t.Errorf("decode %g, want the median 251", v)
	}
	if v := *got["battery_pct_per_100_max"].Value; v < 0.32 || v > 0.33 {
		t.Errorf("battery %% per 100 = %g, want 0.323 (2.7 J of a 6000 mAh, 3.87 V battery)", v)
	}
	if !strings.Contains(got["decode_tok_s_min"].Source, "bench.json: pp1024+tg128, median of 3") {
		t.Errorf("source %q", got["decode_tok_s_min"].Source)
	}

	// Each budget fails on its own.
	for _, c := range []struct {
		budget string
		rep    *bench.Report
		reason string
	}{
		{"decode_tok_s_min", rundirtest.PocketBench(199, 800, 228, 173, 2.7, true), "199 is below the budget ≥ 200"},
		{"prefill_tok_s_min", rundirtest.PocketBench(251, 450, 228, 173, 2.7, true), "450 is below the budget ≥ 500"},
		{"peak_mem_increment_mb_max", rundirtest.PocketBench(251, 800, 301, 173, 2.7, true), "301 is above the budget ≤ 300"},
		{"package_mb_max", rundirtest.PocketBench(251, 800, 228, 190, 2.7, true), "190 is above the budget ≤ 180"},
		{"energy_j_per_inference_max", rundirtest.PocketBench(251, 800, 228, 173, 3.5, true), "3.5 is above the budget ≤ 3"},
		{"battery_pct_per_100_max", rundirtest.PocketBench(251, 800, 228, 173, 9, true), "is above the budget ≤ 1"},
	} {
		got := verdicts(CheckBudgets(p, []rundir.BenchReport{{Path: "b.json", Report: c.rep}}, nil))
		for name, v := range got {
			if fail := name == c.budget || (c.budget == "battery_pct_per_100_max" && name == "energy_j_per_inference_max"); v.Pass == fail {
				t.Errorf("%s over budget: %s pass=%v (%s)", c.budget, name, v.Pass, v.Reason)
			}
		}
		if r := got[c.budget].Reason; !strings.Contains(r, c.reason) {
			t.Errorf("%s: reason %q, want %q", c.budget, r, c.reason)
		}
	}
}

func TestBudgetsMissingMeasurement(t *testing.T) {
	t.Parallel()
	p := gatePolicy(t, allBudgets)
	// No report at all, a run without timings or memory figures, its model
	// not on this machine: every budget fails and says what to provide.
	run := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "m", map[string][]float64{"gsm8k": rundirtest.Pattern(10, 5)}, 0, 0))
	for _, v := range CheckBudgets(p, nil, run) {
		if v.Pass || v.Value != nil || !strings.HasPrefix(v.Reason, "not measured: ") {
			t.Errorf("%s: %+v, want a failure for the missing measurement", v.Budget, v)
		}
	}
	// Energy measured without a battery capacity: the percentage is missing.
	got := verdicts(CheckBudgets(p, []rundir.BenchReport{{Path: "b.json", Report: rundirtest.PocketBench(251, 800, 228, 173, 2.7, false)}}, nil))
	if v := got["battery_pct_per_100_max"]; v.Pass || !strings.Contains(v.Reason, "no battery capacity") {
		t.Errorf("battery without capacity: %+v", v)
	}
	if !got["energy_j_per_inference_max"].Pass {
		t.Errorf("energy: %+v", got["energy_j_per_inference_max"])
	}
	// Two decode tests and no bench_test: ambiguous, so it fails.
	two := rundirtest.PocketBench(251, 800, 228, 173, 2.7, true)
	two.Rows = append(two.Rows, bench.Row{Test: bench.Test{Name: "tg128", NGen: 128}, Decode: bench.Summarize([]float64{300})})
	got = verdicts(CheckBudgets(p, []rundir.BenchReport{{Path: "b.json", Report: two}}, nil))
	if v := got["decode_tok_s_min"]; v.Pass || !strings.Contains(v.Reason, "several bench tests measure it (pp1024+tg128, tg128): name one with budgets.bench_test") {
		t.Errorf("ambiguous decode: %+v", v)
	}
	named := gatePolicy(t, allBudgets+"  bench_test: tg128\n")
	if v := verdicts(CheckBudgets(named, []rundir.BenchReport{{Path: "b.json", Report: two}}, nil))["decode_tok_s_min"]; !v.Pass || *v.Value != 300 {
		t.Errorf("bench_test tg128: %+v", v)
	}
}

func TestBudgetsFromRun(t *testing.T) {
	t.Parallel()
	p := gatePolicy(t, "budgets:\n  decode_tok_s_min: 200\n  peak_mem_increment_mb_max: 300\n")
	run := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "m", map[string][]float64{"gsm8k": rundirtest.Pattern(10, 5), "ifeval": rundirtest.Pattern(10, 5)}, 240, 288))
	got := verdicts(CheckBudgets(p, nil, run))
	if v := got["decode_tok_s_min"]; !v.Pass || *v.Value != 240 || !strings.Contains(v.Source, "median over 2 tasks") {
		t.Errorf("decode from the run: %+v", v)
	}
	if v := got["peak_mem_increment_mb_max"]; !v.Pass || *v.Value != 288 {
		t.Errorf("memory from the run: %+v", v)
	}
}

func TestGateWithBudgets(t *testing.T) {
	t.Parallel()
	scores := map[string][]float64{"ifeval": rundirtest.Pattern(100, 70)}
	base := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "base", scores, 0, 0))
	candDir := rundirtest.FakeRun(t, "cand", scores, 0, 0)
	// The candidate's bench.json is read with the run.
	f, err := os.Create(filepath.Join(candDir, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteJSON(f, rundirtest.PocketBench(180, 800, 228, 173, 2.7, true)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cand := rundirtest.MustLoad(t, candDir)
	if cand.Bench == nil {
		t.Fatal("bench.json not loaded with the run")
	}
	p := gatePolicy(t, "defaults: {max_drop: 1}\n"+allBudgets)
	g, err := Gate(base, cand, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.AddBudgets(CheckBudgets(p, []rundir.BenchReport{*cand.Bench}, cand))
	if g.Pass || len(g.Failures) != 1 || !strings.HasPrefix(g.Failures[0], "budget decode_tok_s_min: 180 is below") {
		t.Fatalf("gate %+v", g.Failures)
	}
	suite, x := readJUnit(t, g)
	// ifeval plus one case per budget; only the decode budget fails.
	if suite.Tests != 7 || suite.Failures != 1 {
		t.Errorf("junit %+v\n%s", suite, x)
	}
	for _, c := range suite.Cases {
		if (c.Failure != nil) != (c.Name == "budget:decode_tok_s_min") {
			t.Errorf("junit case %s failure=%v", c.Name, c.Failure != nil)
		}
	}
	md := g.Markdown()
	for _, want := range []string{"| ifeval |", "| budget decode_tok_s_min | decode tok/s (bench.json: pp1024+tg128, median of 3) | – | 180 |",
		"**FAIL**: 180 is below the budget ≥ 200", "| budget package_mb_max |", "pass (≤ 180)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestBudgetPolicyErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"budgets: {}\n", "budgets: no budget set"},
		{"budgets:\n  decode_tok_s_min: 0\n", "budgets.decode_tok_s_min: must be positive"},
		{"budgets:\n  energy_j_per_inference_max: -1\n", "budgets.energy_j_per_inference_max"},
		{"budgets:\n  decode_tok_s: 200\n", "decode_tok_s"},
	} {
		if _, err := ParsePolicy("gate.yaml", []byte(c.text), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePolicy(%q) = %v, want error mentioning %q", c.text, err, c.want)
		}
	}
}
