package gate

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/leaderboard"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/stats"
	"github.com/pocketeval/pocketeval/suite"
)

func gatePolicy(t *testing.T, text string) *Policy {
	t.Helper()
	p, err := ParsePolicy("gate.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGateRegressionAndWobble(t *testing.T) {
	t.Parallel()
	base := map[string][]float64{"ifeval": rundirtest.Pattern(300, 200), "gsm8k": rundirtest.Pattern(300, 150)}
	// Regression: ifeval loses 40 items.
	reg := map[string][]float64{"ifeval": rundirtest.Pattern(300, 160), "gsm8k": rundirtest.Pattern(300, 150)}
	// Wobble: gsm8k loses 3 items net (within noise), ifeval equal.
	wob := map[string][]float64{"ifeval": rundirtest.Pattern(300, 200), "gsm8k": rundirtest.Pattern(300, 147)}
	a := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "base", base, 0, 0))
	policy := gatePolicy(t, "alpha: 0.05\ndefaults:\n  max_drop: 0.5\n  require_significance: true\n")

	g, err := Gate(a, rundirtest.MustLoad(t, rundirtest.FakeRun(t, "reg", reg, 0, 0)), policy, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Pass || len(g.Failures) != 1 || !strings.HasPrefix(g.Failures[0], "ifeval") {
		t.Fatalf("regression not caught: %+v", g)
	}
	suite, x := readJUnit(t, g)
	if suite.Tests != 2 || suite.Failures != 1 {
		t.Errorf("junit: %+v\n%s", suite, x)
	}
	for _, c := range suite.Cases {
		if (c.Failure != nil) != (c.Name == "ifeval") {
			t.Errorf("junit case %s failure=%v", c.Name, c.Failure != nil)
		}
	}
	if md := g.Markdown(); !strings.Contains(md, "regression") || !strings.Contains(md, "**FAIL**") {
		t.Errorf("markdown:\n%s", md)
	}

	g, err = Gate(a, rundirtest.MustLoad(t, rundirtest.FakeRun(t, "wob", wob, 0, 0)), policy, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Pass {
		t.Fatalf("non-significant wobble failed: %+v", g.Failures)
	}
	// Without the significance requirement the same wobble fails.
	strict := gatePolicy(t, "defaults:\n  max_drop: 0.5\n")
	g, _ = Gate(a, rundirtest.MustLoad(t, rundirtest.FakeRun(t, "wob2", wob, 0, 0)), strict, 1)
	if g.Pass {
		t.Error("wobble passed a policy that does not ask for significance")
	}
	// Minimum score and suite floor.
	floor := gatePolicy(t, "tasks:\n  gsm8k: {min_score: 60}\nsuite_average_floor: 90\n")
	g, _ = Gate(a, rundirtest.MustLoad(t, rundirtest.FakeRun(t, "wob3", wob, 0, 0)), floor, 1)
	if g.Pass || len(g.Failures) != 2 {
		t.Errorf("min score / floor: %+v", g.Failures)
	}
}

func TestPolicyErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"alpha: 2\n", "alpha"},
		{"defaults:\n  max_drop: -1\n", "max_drop"},
		{"tasks:\n  x: {min_score: 130}\n", "min_score"},
		{"bogus: 1\n", "unknown field \"bogus\""},
		{"defaults: [1, 2]\n", "gate.yaml"},
	} {
		if _, err := ParsePolicy("gate.yaml", []byte(c.text), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePolicy(%q) = %v, want error mentioning %q", c.text, err, c.want)
		}
	}
}

// TestGateRequiredTaskAbsent: a required task that the candidate lacks or
// failed entirely fails the gate with its own JUnit case and reason, and no
// number stands for it; the suite average of the gate is the one `suite`
// reports (n/a when a task of the suite is missing).
func TestGateRequiredTaskAbsent(t *testing.T) {
	t.Parallel()
	runs := map[string][]float64{"ifeval": rundirtest.Pattern(50, 30), "gsm8k": rundirtest.Pattern(50, 20)}
	base := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "base", runs, 0, 0))
	candDir := rundirtest.FakeRun(t, "cand", runs, 0, 0)
	var failed []results.Record
	for i := range 50 {
		failed = append(failed, results.Record{Task: "gsm8k", ID: fmt.Sprint(i), Index: i, Error: "runtime: prompt longer than the context"})
	}
	if err := results.RewriteSorted(results.SamplesPath(candDir, "gsm8k"), failed); err != nil {
		t.Fatal(err)
	}
	sum, _ := results.ReadSummary(candDir)
	ts := sum.Tasks["gsm8k"]
	ts.Metrics, ts.Scored, ts.Errors, ts.FirstError = map[string]stats.Summary{}, 0, 50, "sample 0: runtime: prompt longer than the context"
	results.WriteSummary(candDir, sum)
	cand := rundirtest.MustLoad(t, candDir)
	p := gatePolicy(t, "require_tasks: [ifeval, gsm8k, mgsm_zh]\nsuite_average_floor: 10\n")
	g, err := Gate(base, cand, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Pass || g.Suite != "pocket11" || g.Average != nil {
		t.Fatalf("gate %+v", g)
	}
	reasons := map[string]string{}
	for _, v := range g.Tasks {
		reasons[v.Task] = strings.Join(v.Reasons, "; ")
		if v.Task != "ifeval" && (v.Candidate != nil || v.Delta != nil || v.P != nil) {
			t.Errorf("%s: numbers for an unmeasured task: %+v", v.Task, v)
		}
	}
	if !strings.Contains(reasons["gsm8k"], "failed in the candidate run: all 50 samples failed; first: sample 0: runtime: prompt longer") ||
		!strings.Contains(reasons["mgsm_zh"], "missing from the baseline run; missing from the candidate run") || reasons["ifeval"] != "" {
		t.Errorf("reasons %q", reasons)
	}
	x, err := g.JUnit()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`name="gsm8k"`, `name="mgsm_zh"`, `name="suite_average"`, "suite average is n/a"} {
		if !bytes.Contains(x, []byte(name)) {
			t.Errorf("junit lacks %s:\n%s", name, x)
		}
	}
	md := g.Markdown()
	if strings.Contains(md, "| gsm8k | exact") && strings.Contains(md, "0.00") {
		t.Errorf("markdown shows a number for a failed task:\n%s", md)
	}
	if !strings.Contains(md, "| gsm8k |") || !strings.Contains(md, "| failed |") || !strings.Contains(md, "Suite average (pocket11, candidate): **n/a**") {
		t.Errorf("markdown:\n%s", md)
	}
}

// TestOneSuiteAverage checks that suite, gate and leaderboard report the
// same scores and average, on each task's headline metric (issue 15: the
// gate used to average primary metrics while suite averaged headlines).
func TestOneSuiteAverage(t *testing.T) {
	t.Parallel()
	scores := map[string][]float64{"ifeval": rundirtest.Pattern(100, 70), "gsm8k": rundirtest.Pattern(100, 40)}
	dir := rundirtest.FakeRun(t, "m", scores, 0, 0)
	rundirtest.WithHeadline(t, dir, "ifeval", 0.61)
	base := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "base", scores, 0, 0))
	rundirtest.WithHeadline(t, base.Dir, "ifeval", 0.61)
	base = rundirtest.MustLoad(t, base.Dir)
	r := rundirtest.MustLoad(t, dir)
	want := (61.0 + 40.0) / 2

	rep, err := rundir.SuiteOf(r, &suite.Suite{Name: "s", Tasks: []suite.Entry{{Task: "ifeval"}, {Task: "gsm8k"}}}, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Average == nil || math.Abs(*rep.Average-want) > 1e-9 {
		t.Fatalf("suite average = %v, want %v", rep.Average, want)
	}
	if rep.Rows[0].Metric != "acc_macro" || *rep.Rows[0].Score != 61 {
		t.Errorf("suite row = %+v, want acc_macro 61", rep.Rows[0])
	}
	b, err := leaderboard.NewBoard([]*rundir.Run{r}, leaderboard.BoardOptions{Title: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows[0].Mean == nil || *b.Rows[0].Mean != *rep.Average {
		t.Errorf("board mean = %v, suite average %v", b.Rows[0].Mean, *rep.Average)
	}
	if c := b.Rows[0].Cells["ifeval"]; c.Metric != "acc_macro" || c.Value != 61 {
		t.Errorf("board cell = %+v", c)
	}
	suiteFile := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(suiteFile, []byte("name: s\ntasks: [{task: ifeval}, {task: gsm8k}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := Gate(base, r, gatePolicy(t, "suite: "+suiteFile+"\nsuite_average_floor: 50\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if g.Average == nil || *g.Average != *rep.Average {
		t.Errorf("gate average = %v, suite average %v", g.Average, *rep.Average)
	}
	if v := g.Tasks[0]; v.Task != "ifeval" || v.Metric != "acc_macro" || v.Candidate == nil || *v.Candidate != 61 || len(v.Notes) == 0 {
		t.Errorf("gate verdict = %+v", v)
	}
}
