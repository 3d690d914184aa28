package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
	"github.com/pocketeval/pocketeval/stats"
)

// family is the shape of one task family's results: the per-sample metric
// the samples store, the primary metric the summary names (and compare
// tests), the headline, and the samples per problem.
type family struct {
	name              string
	perSample         string // stored in each record
	primary, headline string
	repeats           int
	// continuous values (rouge-like) instead of 0/1
	continuous bool
}

var families = []family{
	{name: "mc", perSample: "acc", primary: "acc", headline: "acc"},
	{name: "math", perSample: "exact_match_flexible", primary: "exact_match_flexible", headline: "exact_match_flexible"},
	{name: "ifeval", perSample: "prompt_level_strict_acc", primary: "prompt_level_strict_acc", headline: "prompt_level_strict_acc"},
	{name: "macro", perSample: "acc", primary: "acc", headline: "acc_macro"},
	{name: "code", perSample: "pass", primary: "pass@1", headline: "pass@1"},
	{name: "code-n5", perSample: "pass", primary: "pass@1", headline: "pass@1", repeats: 5},
	{name: "taskfile-rouge", perSample: "rougeL", primary: "rougeL", headline: "rougeL", continuous: true},
}

// writeFamilyRun writes a run of one task of family f over problems
// problems; value(i, r) is problem i's value at repeat r.
func writeFamilyRun(t *testing.T, f family, problems int, value func(i, r int) float64) *rundir.Run {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, results.SamplesDir), 0o755)
	task := "t_" + strings.ReplaceAll(f.name, "-", "_")
	reps := max(f.repeats, 1)
	m := &results.Manifest{Status: results.StatusComplete, Start: time.Unix(0, 0).UTC(),
		Config: results.Config{Runtime: "replay", SamplesPerTask: reps,
			Tasks: []results.TaskConfig{{Name: task, Version: "1", DatasetFiles: map[string]string{"d.jsonl": "abc"}, Samples: problems}}}}
	var recs []results.Record
	var vals []float64
	var counts []codescore.Count
	for i := range problems {
		c := codescore.Count{ID: fmt.Sprintf("p%03d", i), N: reps}
		for r := range reps {
			v := value(i, r)
			vals = append(vals, v)
			if v == 1 {
				c.Passed++
			}
			recs = append(recs, results.Record{Task: task, ID: c.ID, Index: i, Repeat: r, Scores: map[string]float64{f.perSample: v}})
		}
		counts = append(counts, c)
	}
	if err := results.RewriteSorted(results.SamplesPath(dir, task), recs); err != nil {
		t.Fatal(err)
	}
	st := stats.Summarize(vals)
	ts := &results.TaskSummary{Version: "1", PrimaryMetric: f.primary, Metrics: map[string]stats.Summary{f.perSample: st},
		Samples: problems * reps, Scored: problems * reps}
	switch {
	case strings.HasPrefix(f.primary, "pass@"): // only the aggregate computes it
		p := codescore.EstimatePassAtK(counts, []int{1}).Values[f.primary]
		ts.Metrics[f.primary] = stats.Summary{Mean: p, N: problems}
	case f.primary != f.perSample: // an aggregate with no per-sample values
		ts.Metrics[f.primary] = stats.Summary{Mean: stats.Mean(vals), N: problems}
	case f.headline != f.primary: // a macro average over two "subjects"
		half := len(vals) / 2
		macro := (stats.Mean(vals[:half]) + stats.Mean(vals[half:])) / 2
		ts.Metrics[f.headline] = stats.Summary{Mean: macro, N: problems}
		ts.HeadlineMetric = f.headline
	}
	ts.Primary = ts.Metrics[f.primary].Mean
	sum := &results.Summary{Complete: true, Order: []string{task}, Tasks: map[string]*results.TaskSummary{task: ts}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	r, err := rundir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSeededRegressionMatrix: for every task family, a candidate equal to
// the baseline passes, a drop within max_drop passes, and a large drop
// fails docs/ci.md's policy (require_significance): each family's
// headline has values the paired test reads.
func TestSeededRegressionMatrix(t *testing.T) {
	t.Parallel()
	const problems = 200
	policy := gatePolicy(t, "alpha: 0.05\ndefaults:\n  max_drop: 2.0\n  require_significance: true\n")
	base := func(i, r int) float64 {
		if (i*7+r*3)%10 < 6 { // 60% solved
			return 1
		}
		return 0
	}
	for _, f := range families {
		valueOf := func(broken int) func(i, r int) float64 {
			return func(i, r int) float64 {
				v := base(i, r)
				if f.continuous && v == 1 {
					v = 0.5 + float64(i%5)/10
				}
				if i < broken*2 && i%2 == 0 { // every other problem among the first, one in two broken
					return 0
				}
				return v
			}
		}
		baseline := writeFamilyRun(t, f, problems, valueOf(0))
		for _, c := range []struct {
			name     string
			broken   int
			wantPass bool
		}{{"no drop", 0, true}, {"small drop", 1, true}, {"large drop", 40, false}} {
			cand := writeFamilyRun(t, f, problems, valueOf(c.broken))
			g, err := Gate(baseline, cand, policy, Options{Seed: 1})
			if err != nil {
				t.Fatalf("%s, %s: %v", f.name, c.name, err)
			}
			v := g.Tasks[0]
			if g.Pass != c.wantPass {
				t.Errorf("%s, %s: pass %v, want %v (delta %v, test %q, p %v): %v %v", f.name, c.name, g.Pass, c.wantPass, deref(v.Delta), v.Test, deref(v.P), v.Reasons, v.Notes)
			}
			if v.P == nil || strings.HasPrefix(v.Test, "none") {
				t.Errorf("%s, %s: no paired test (%q): %v", f.name, c.name, v.Test, v.Notes)
			}
		}
	}
}

func deref(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}

// TestUntestableDropFailsClosed: a drop beyond max_drop on a metric with
// no per-sample values fails, with the reason, instead of passing as "not
// significant".
func TestUntestableDropFailsClosed(t *testing.T) {
	t.Parallel()
	f := family{name: "aggregate-only", perSample: "acc", primary: "acc_agg", headline: "acc_agg"}
	policy := gatePolicy(t, "defaults:\n  max_drop: 1.0\n  require_significance: true\n")
	baseline := writeFamilyRun(t, f, 50, func(i, r int) float64 { return float64(i % 2) })
	cand := writeFamilyRun(t, f, 50, func(i, r int) float64 {
		if i < 20 {
			return 0
		}
		return float64(i % 2)
	})
	g, err := Gate(baseline, cand, policy, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.Pass || len(g.Tasks) != 1 || !strings.Contains(strings.Join(g.Tasks[0].Reasons, ";"), "cannot be tested (no per-sample values of acc_agg): failing closed") {
		t.Fatalf("gate %+v", g.Tasks)
	}
	if md := g.Markdown(); !strings.Contains(md, "no test") {
		t.Errorf("markdown:\n%s", md)
	}
}
