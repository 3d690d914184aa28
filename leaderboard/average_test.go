package leaderboard

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals/suite"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// withHeadline gives task in dir a macro metric with value macro and makes
// it the task's headline, as C-Eval's aggregator does.
func withHeadline(t *testing.T, dir, task string, macro float64) {
	t.Helper()
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := sum.Tasks[task]
	ts.Metrics["acc_macro"] = stats.Summary{Mean: macro, Stderr: 0.02, Lo: macro - 0.04, Hi: macro + 0.04, N: ts.Scored}
	ts.HeadlineMetric = "acc_macro"
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
}

// TestOneSuiteAverage checks that suite, gate and leaderboard report the
// same scores and average, on each task's headline metric (issue 15: the
// gate used to average primary metrics while suite averaged headlines).
func TestOneSuiteAverage(t *testing.T) {
	t.Parallel()
	scores := map[string][]float64{"ifeval": pattern(100, 70), "gsm8k": pattern(100, 40)}
	dir := fakeRun(t, "m", scores, 0, 0)
	withHeadline(t, dir, "ifeval", 0.61)
	base := mustLoad(t, fakeRun(t, "base", scores, 0, 0))
	withHeadline(t, base.Dir, "ifeval", 0.61)
	base = mustLoad(t, base.Dir)
	r := mustLoad(t, dir)
	want := (61.0 + 40.0) / 2

	rep, err := SuiteOf(r, &suite.Suite{Name: "s", Tasks: []suite.Entry{{Task: "ifeval"}, {Task: "gsm8k"}}}, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Average == nil || math.Abs(*rep.Average-want) > 1e-9 {
		t.Fatalf("suite average = %v, want %v", rep.Average, want)
	}
	if rep.Rows[0].Metric != "acc_macro" || *rep.Rows[0].Score != 61 {
		t.Errorf("suite row = %+v, want acc_macro 61", rep.Rows[0])
	}
	b, err := NewBoard([]*Run{r}, BoardOptions{Title: "b"})
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

func TestSuiteAverageRule(t *testing.T) {
	t.Parallel()
	dir := fakeRun(t, "m", map[string][]float64{"ifeval": pattern(10, 5), "gsm8k": pattern(10, 2)}, 0, 0)
	// gsm8k: every sample failed, so no metric was produced.
	var failed []results.Record
	for i := range 10 {
		failed = append(failed, results.Record{Task: "gsm8k", ID: fmt.Sprint(i), Index: i, Error: "runtime: boom"})
	}
	if err := results.RewriteSorted(results.SamplesPath(dir, "gsm8k"), failed); err != nil {
		t.Fatal(err)
	}
	sum, _ := results.ReadSummary(dir)
	sum.Tasks["gsm8k"].Metrics = map[string]stats.Summary{}
	sum.Tasks["gsm8k"].Scored, sum.Tasks["gsm8k"].Errors = 0, 10
	results.WriteSummary(dir, sum)
	r := mustLoad(t, dir)

	rows, avg, err := SuiteAverage(r, []suite.Entry{{Task: "ifeval"}, {Task: "gsm8k"}, {Task: "mmlu"}}, AverageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if avg.Value != nil || avg.Partial == nil || *avg.Partial != 50 || avg.Scored != 1 {
		t.Errorf("average = %+v, want undefined with partial 50 over 1 task", avg)
	}
	if got := strings.Join(avg.Missing, "; "); got != "gsm8k (failed: all 10 samples failed; first: ); mmlu" {
		t.Errorf("missing = %q", got)
	}
	if rows[1].Score != nil || rows[2].Score != nil || rows[0].Score == nil {
		t.Errorf("rows = %+v", rows)
	}
	// A task with failed samples has a score but no average: only a run
	// in which every task is complete has one.
	for i := range 8 {
		failed[i] = results.Record{Task: "gsm8k", ID: fmt.Sprint(i), Index: i, Scores: map[string]float64{"acc": float64(i % 2)}}
	}
	if err := results.RewriteSorted(results.SamplesPath(dir, "gsm8k"), failed); err != nil {
		t.Fatal(err)
	}
	sum.Tasks["gsm8k"].Metrics = map[string]stats.Summary{"acc": {Mean: 0.5, N: 8}}
	sum.Tasks["gsm8k"].Scored, sum.Tasks["gsm8k"].Errors, sum.Tasks["gsm8k"].FirstError = 8, 2, "sample 8: runtime: boom"
	results.WriteSummary(dir, sum)
	r = mustLoad(t, dir)
	rows, avg, err = SuiteAverage(r, []suite.Entry{{Task: "ifeval"}, {Task: "gsm8k"}}, AverageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if avg.Value != nil || avg.Scored != 2 || avg.Complete != 1 || rows[1].Score == nil || rows[1].Status != results.TaskIncomplete ||
		strings.Join(avg.Missing, "; ") != "gsm8k (incomplete: 8 of 10 samples scored)" {
		t.Errorf("incomplete task: average %+v, rows %+v", avg, rows)
	}
	// An explicit metric the task does not have is a suite error.
	if _, _, err := SuiteAverage(r, []suite.Entry{{Task: "ifeval", Metric: "nope"}}, AverageOptions{}); err == nil || !strings.Contains(err.Error(), `no metric "nope"`) {
		t.Errorf("err = %v", err)
	}
	// No entries: no average.
	if _, avg, _ := SuiteAverage(r, nil, AverageOptions{}); avg.Value != nil || avg.Partial != nil {
		t.Errorf("empty suite average = %+v", avg)
	}
}
