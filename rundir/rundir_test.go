package rundir_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/stats"
	"github.com/pocketeval/pocketeval/suite"
)

// TestLoadRecomputesFromSamples: the summary is a cache of the samples.
// Every way issue 21 found to make suite, compare, gate and leaderboard
// show numbers the samples do not support is refused by Load, naming the
// file (and line, for a bad record).
func TestLoadRecomputesFromSamples(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		edit func(t *testing.T, dir string)
		want string // in the error
		as   any    // error type
	}{
		{"primary metric 5.0", func(t *testing.T, dir string) {
			rundirtest.EditSummary(t, dir, func(s *results.Summary) {
				m := s.Tasks["gsm8k"].Metrics["acc"]
				m.Mean = 5
				s.Tasks["gsm8k"].Metrics["acc"], s.Tasks["gsm8k"].Primary = m, 5
			})
		}, "acc is 5 over 40 samples in the summary, 0.5 over 40 in the samples", new(*rundir.InconsistentError)},
		{"primary metric -3.0", func(t *testing.T, dir string) {
			rundirtest.EditSummary(t, dir, func(s *results.Summary) {
				m := s.Tasks["gsm8k"].Metrics["acc"]
				m.Mean = -3
				s.Tasks["gsm8k"].Metrics["acc"] = m
			})
		}, "acc is -3 over 40 samples", new(*rundir.InconsistentError)},
		{"scores edited, summary not", func(t *testing.T, dir string) {
			rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
				for i := range lines {
					lines[i] = strings.Replace(lines[i], `"acc":0`, `"acc":1`, 1)
				}
				return lines
			})
		}, "acc is 0.5 over 40 samples in the summary, 1 over 40 in the samples", new(*rundir.InconsistentError)},
		{"same id twice, second correct", func(t *testing.T, dir string) {
			rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
				return append(lines, strings.Replace(lines[1], `"acc":0`, `"acc":1`, 1))
			})
		}, `gsm8k.jsonl:41: field "id": second record of sample 1 (repeat 0), which already has a result on line 2`, new(*results.SampleError)},
		{"record of another task", func(t *testing.T, dir string) {
			rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
				lines[3] = strings.Replace(lines[3], `"task":"gsm8k"`, `"task":"ifeval"`, 1)
				return lines
			})
		}, `gsm8k.jsonl:4: field "task": record of task "ifeval"`, new(*results.SampleError)},
		{"stray id at a new index", func(t *testing.T, dir string) {
			rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
				return append(lines, `{"task":"gsm8k","id":"extra","index":40,"response":"","scores":{"acc":1}}`+"\n")
			})
		}, "41 records for the 40 selected samples (a stray record, e.g. line 41)", new(*rundir.InconsistentError)},
		{"stray id at a taken index", func(t *testing.T, dir string) {
			rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
				return append(lines, `{"task":"gsm8k","id":"extra","index":7,"response":"","scores":{"acc":1}}`+"\n")
			})
		}, `gsm8k.jsonl:41: field "index": sample extra claims index 7, which sample 7 has on line 8`, new(*results.SampleError)},
		{"score out of range", func(t *testing.T, dir string) {
			rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
				lines[0] = strings.Replace(lines[0], `"acc":1`, `"acc":100`, 1)
				return lines
			})
		}, `gsm8k.jsonl:1: field "scores.acc": 100 is outside [0, 1]`, new(*results.SampleError)},
		{"counts edited", func(t *testing.T, dir string) {
			rundirtest.EditSummary(t, dir, func(s *results.Summary) { s.Tasks["gsm8k"].Scored = 30; s.Tasks["gsm8k"].Errors = 10 })
		}, "30 scored and 10 failed in the summary, 40 and 0 in the samples", new(*rundir.InconsistentError)},
		{"aggregate out of range", func(t *testing.T, dir string) {
			rundirtest.EditSummary(t, dir, func(s *results.Summary) {
				s.Tasks["gsm8k"].Metrics["acc_macro"] = s.Tasks["gsm8k"].Metrics["acc"]
				m := s.Tasks["gsm8k"].Metrics["acc_macro"]
				m.Mean = 1.5
				s.Tasks["gsm8k"].Metrics["acc_macro"] = m
			})
		}, "acc_macro = 1.5", new(*rundir.InconsistentError)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := rundirtest.FakeRun(t, "m", map[string][]float64{"gsm8k": rundirtest.Pattern(40, 20), "ifeval": rundirtest.Pattern(10, 5)}, 0, 0)
			if _, err := rundir.Load(dir); err != nil {
				t.Fatalf("before the edit: %v", err)
			}
			c.edit(t, dir)
			_, err := rundir.Load(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("Load = %v, want an error naming the run and %q", err, c.want)
			}
			if !errors.As(err, c.as) {
				t.Errorf("Load = %T, want %T", errors.Unwrap(err), c.as)
			}
		})
	}
}

// TestRecordsOutsideTheSelection: records a resume with a smaller --limit
// left behind are neither refused nor counted.
func TestRecordsOutsideTheSelection(t *testing.T) {
	t.Parallel()
	dir := rundirtest.FakeRun(t, "m", map[string][]float64{"gsm8k": rundirtest.Pattern(10, 5)}, 0, 0)
	rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
		for i := 10; i < 15; i++ {
			lines = append(lines, fmt.Sprintf(`{"task":"gsm8k","id":"%d","index":%d,"response":"","scores":{"acc":1}}`+"\n", i, i))
		}
		return lines
	})
	m, _ := results.ReadManifest(dir)
	m.Config.Limit = 10
	results.WriteManifest(dir, m)
	r := rundirtest.MustLoad(t, dir)
	if recs, _ := r.Records("gsm8k"); len(recs) != 10 {
		t.Errorf("%d records, want the 10 the run selects", len(recs))
	}
}

func TestSuiteAverageRule(t *testing.T) {
	t.Parallel()
	dir := rundirtest.FakeRun(t, "m", map[string][]float64{"ifeval": rundirtest.Pattern(10, 5), "gsm8k": rundirtest.Pattern(10, 2)}, 0, 0)
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
	r := rundirtest.MustLoad(t, dir)

	rows, avg, err := rundir.SuiteAverage(r, []suite.Entry{{Task: "ifeval"}, {Task: "gsm8k"}, {Task: "mmlu"}}, rundir.AverageOptions{})
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
	r = rundirtest.MustLoad(t, dir)
	rows, avg, err = rundir.SuiteAverage(r, []suite.Entry{{Task: "ifeval"}, {Task: "gsm8k"}}, rundir.AverageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if avg.Value != nil || avg.Scored != 2 || avg.Complete != 1 || rows[1].Score == nil || rows[1].Status != results.TaskIncomplete ||
		strings.Join(avg.Missing, "; ") != "gsm8k (incomplete: 8 of 10 samples scored)" {
		t.Errorf("incomplete task: average %+v, rows %+v", avg, rows)
	}
	// An explicit metric the task does not have is a suite error.
	if _, _, err := rundir.SuiteAverage(r, []suite.Entry{{Task: "ifeval", Metric: "nope"}}, rundir.AverageOptions{}); err == nil || !strings.Contains(err.Error(), `no metric "nope"`) {
		t.Errorf("err = %v", err)
	}
	// No entries: no average.
	if _, avg, _ := rundir.SuiteAverage(r, nil, rundir.AverageOptions{}); avg.Value != nil || avg.Partial != nil {
		t.Errorf("empty suite average = %+v", avg)
	}
}

func TestSuiteReport(t *testing.T) {
	t.Parallel()
	dir := rundirtest.FakeRun(t, "m", map[string][]float64{"ifeval": rundirtest.Pattern(100, 70), "gsm8k": rundirtest.Pattern(100, 40)}, 0, 0)
	r := rundirtest.MustLoad(t, dir)
	rep70 := 73.2
	spec := &suite.Suite{Name: "two", ReportedAverage: nil, Tasks: []suite.Entry{{Task: "ifeval", Reported: &rep70}, {Task: "gsm8k"}}}
	rep, err := rundir.SuiteOf(r, spec, 1000, 1)
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
	rep, _ = rundir.SuiteOf(r, spec, 100, 1)
	buf.Reset()
	rep.Print(&buf)
	if rep.Average != nil || !strings.Contains(buf.String(), "not complete: mmlu") || !strings.Contains(buf.String(), "mmlu               missing") {
		t.Errorf("missing task:\n%s", buf.String())
	}
}
