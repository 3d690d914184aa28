package leaderboard

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals/suite"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// fakeRun writes a result directory with one task per entry of scores:
// task → per-sample 0/1 values of metric "acc".
func fakeRun(t *testing.T, model string, scores map[string][]float64, tps float64, peakMB float64) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, results.SamplesDir), 0o755)
	m := &results.Manifest{Status: results.StatusComplete, Start: time.Unix(0, 0).UTC(),
		Config: results.Config{Runtime: "llamacpp", Model: results.Model{Path: "/models/" + model}}}
	if peakMB > 0 {
		m.Resources = &results.Resources{InProcess: true, PeakIncreaseMB: peakMB}
	}
	sum := &results.Summary{Complete: true, Tasks: map[string]*results.TaskSummary{}}
	for _, task := range sortedTaskNames(scores) {
		vals := scores[task]
		m.Config.Tasks = append(m.Config.Tasks, results.TaskConfig{Name: task, Version: "1", DatasetFiles: map[string]string{task + ".jsonl": "abc"}, Samples: len(vals)})
		var recs []results.Record
		for i, v := range vals {
			recs = append(recs, results.Record{Task: task, ID: fmt.Sprint(i), Index: i, Scores: map[string]float64{"acc": v}})
		}
		if err := results.RewriteSorted(results.SamplesPath(dir, task), recs); err != nil {
			t.Fatal(err)
		}
		st := stats.Summarize(vals)
		sum.Tasks[task] = &results.TaskSummary{Version: "1", PrimaryMetric: "acc", Primary: st.Mean,
			Metrics: map[string]stats.Summary{"acc": st}, Samples: len(vals), Scored: len(vals),
			Timing: &results.Timing{DecodeTPSMedian: tps}}
		sum.Order = append(sum.Order, task)
	}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sortedTaskNames(m map[string][]float64) []string {
	var out []string
	for _, k := range []string{"ifeval", "gsm8k", "humaneval"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// pattern returns n 0/1 values with k ones, spread deterministically.
func pattern(n, k int) []float64 {
	out := make([]float64, n)
	for i := 0; i < k; i++ {
		out[(i*7)%n] = 1
	}
	return out
}

func mustLoad(t *testing.T, dir string) *Run {
	t.Helper()
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCompareMcNemar(t *testing.T) {
	t.Parallel()
	base := pattern(200, 120)
	cand := append([]float64(nil), base...)
	// Candidate loses 30 items and gains 2.
	lost := 0
	for i := range cand {
		if cand[i] == 1 && lost < 30 {
			cand[i] = 0
			lost++
		}
	}
	gained := 0
	for i := range cand {
		if base[i] == 0 && gained < 2 {
			cand[i] = 1
			gained++
		}
	}
	a := mustLoad(t, fakeRun(t, "a.gguf", map[string][]float64{"gsm8k": base}, 100, 200))
	b := mustLoad(t, fakeRun(t, "b.gguf", map[string][]float64{"gsm8k": cand}, 120, 150))
	c, err := Compare(a, b, CompareOptions{Seed: 1, Resamples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Tasks[0]
	if tc.Test != "mcnemar-exact" || tc.OnlyA != 30 || tc.OnlyB != 2 || !tc.Significant {
		t.Errorf("comparison: %+v", tc)
	}
	if want := stats.McNemarExact(30, 2); tc.P != want {
		t.Errorf("p = %v, want %v", tc.P, want)
	}
	if !(tc.Hi < 0) {
		t.Errorf("interval [%v,%v] should be below 0", tc.Lo, tc.Hi)
	}
}

func TestCompareRefusesMisaligned(t *testing.T) {
	t.Parallel()
	a := mustLoad(t, fakeRun(t, "a", map[string][]float64{"gsm8k": pattern(50, 20)}, 0, 0))
	b := mustLoad(t, fakeRun(t, "b", map[string][]float64{"gsm8k": pattern(40, 20)}, 0, 0))
	_, err := Compare(a, b, CompareOptions{})
	var ae *AlignmentError
	if err == nil || !strings.Contains(err.Error(), "only in A") {
		t.Fatalf("err = %v", err)
	}
	if !asAlignment(err, &ae) {
		t.Errorf("not an AlignmentError: %T", err)
	}
	// A different dataset hash is refused too.
	c := fakeRun(t, "c", map[string][]float64{"gsm8k": pattern(50, 20)}, 0, 0)
	m, _ := results.ReadManifest(c)
	m.Config.Tasks[0].DatasetFiles["gsm8k.jsonl"] = "def"
	results.WriteManifest(c, m)
	if _, err := Compare(a, mustLoad(t, c), CompareOptions{}); err == nil || !strings.Contains(err.Error(), "different dataset") {
		t.Errorf("err = %v", err)
	}
}

func asAlignment(err error, ae **AlignmentError) bool {
	e, ok := err.(*AlignmentError)
	*ae = e
	return ok
}

func gatePolicy(t *testing.T, text string) *Policy {
	t.Helper()
	p, err := ParsePolicy("gate.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGateRegressionAndWobble(t *testing.T) {
	t.Parallel()
	base := map[string][]float64{"ifeval": pattern(300, 200), "gsm8k": pattern(300, 150)}
	// Regression: ifeval loses 40 items.
	reg := map[string][]float64{"ifeval": pattern(300, 160), "gsm8k": pattern(300, 150)}
	// Wobble: gsm8k loses 3 items net (within noise), ifeval equal.
	wob := map[string][]float64{"ifeval": pattern(300, 200), "gsm8k": pattern(300, 147)}
	a := mustLoad(t, fakeRun(t, "base", base, 0, 0))
	policy := gatePolicy(t, "alpha: 0.05\ndefaults:\n  max_drop: 0.5\n  require_significance: true\n")

	g, err := Gate(a, mustLoad(t, fakeRun(t, "reg", reg, 0, 0)), policy, 1)
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

	g, err = Gate(a, mustLoad(t, fakeRun(t, "wob", wob, 0, 0)), policy, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Pass {
		t.Fatalf("non-significant wobble failed: %+v", g.Failures)
	}
	// Without the significance requirement the same wobble fails.
	strict := gatePolicy(t, "defaults:\n  max_drop: 0.5\n")
	g, _ = Gate(a, mustLoad(t, fakeRun(t, "wob2", wob, 0, 0)), strict, 1)
	if g.Pass {
		t.Error("wobble passed a policy that does not ask for significance")
	}
	// Minimum score and suite floor.
	floor := gatePolicy(t, "tasks:\n  gsm8k: {min_score: 60}\nsuite_average_floor: 90\n")
	g, _ = Gate(a, mustLoad(t, fakeRun(t, "wob3", wob, 0, 0)), floor, 1)
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
		if _, err := ParsePolicy("gate.yaml", []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePolicy(%q) = %v, want error mentioning %q", c.text, err, c.want)
		}
	}
}

func TestSuiteReport(t *testing.T) {
	t.Parallel()
	dir := fakeRun(t, "m", map[string][]float64{"ifeval": pattern(100, 70), "gsm8k": pattern(100, 40)}, 0, 0)
	r := mustLoad(t, dir)
	rep70 := 73.2
	spec := &suite.Suite{Name: "two", ReportedAverage: nil, Tasks: []suite.Entry{{Task: "ifeval", Reported: &rep70}, {Task: "gsm8k"}}}
	rep, err := SuiteOf(r, spec, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Average == nil || math.Abs(*rep.Average-55) > 1e-9 || !(rep.AvgLo < 55 && rep.AvgHi > 55) {
		t.Fatalf("average %v [%v,%v]", *rep.Average, rep.AvgLo, rep.AvgHi)
	}
	if d := *rep.Rows[0].Delta; d < -3.21 || d > -3.19 {
		t.Errorf("delta = %v, want -3.2", d)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	if !strings.Contains(buf.String(), "AVERAGE") || !strings.Contains(buf.String(), "55.00") {
		t.Errorf("table:\n%s", buf.String())
	}
	// A missing task leaves the average undefined, says so.
	spec.Tasks = append(spec.Tasks, suite.Entry{Task: "mmlu"})
	rep, _ = SuiteOf(r, spec, 100, 1)
	buf.Reset()
	rep.Print(&buf)
	if rep.Average != nil || !strings.Contains(buf.String(), "not complete: mmlu") || !strings.Contains(buf.String(), "mmlu               missing") {
		t.Errorf("missing task:\n%s", buf.String())
	}
}

// TestGateRequiredTaskAbsent: a required task that the candidate lacks or
// failed entirely fails the gate with its own JUnit case and reason, and no
// number stands for it; the suite average of the gate is the one `suite`
// reports (n/a when a task of the suite is missing).
func TestGateRequiredTaskAbsent(t *testing.T) {
	t.Parallel()
	runs := map[string][]float64{"ifeval": pattern(50, 30), "gsm8k": pattern(50, 20)}
	base := mustLoad(t, fakeRun(t, "base", runs, 0, 0))
	candDir := fakeRun(t, "cand", runs, 0, 0)
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
	cand := mustLoad(t, candDir)
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
