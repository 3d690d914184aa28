package leaderboard

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals/suite"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// editSummary rewrites a run's summary.json.
func editSummary(t *testing.T, dir string, edit func(*results.Summary)) {
	t.Helper()
	s, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(s)
	if err := results.WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
}

// editSamples rewrites a task's samples file line by line.
func editSamples(t *testing.T, dir, task string, edit func(lines []string) []string) {
	t.Helper()
	path := results.SamplesPath(dir, task)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = edit(lines[:len(lines)-1])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

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
			editSummary(t, dir, func(s *results.Summary) {
				m := s.Tasks["gsm8k"].Metrics["acc"]
				m.Mean = 5
				s.Tasks["gsm8k"].Metrics["acc"], s.Tasks["gsm8k"].Primary = m, 5
			})
		}, "acc is 5 over 40 samples in the summary, 0.5 over 40 in the samples", new(*InconsistentError)},
		{"primary metric -3.0", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s *results.Summary) {
				m := s.Tasks["gsm8k"].Metrics["acc"]
				m.Mean = -3
				s.Tasks["gsm8k"].Metrics["acc"] = m
			})
		}, "acc is -3 over 40 samples", new(*InconsistentError)},
		{"scores edited, summary not", func(t *testing.T, dir string) {
			editSamples(t, dir, "gsm8k", func(lines []string) []string {
				for i := range lines {
					lines[i] = strings.Replace(lines[i], `"acc":0`, `"acc":1`, 1)
				}
				return lines
			})
		}, "acc is 0.5 over 40 samples in the summary, 1 over 40 in the samples", new(*InconsistentError)},
		{"same id twice, second correct", func(t *testing.T, dir string) {
			editSamples(t, dir, "gsm8k", func(lines []string) []string {
				return append(lines, strings.Replace(lines[1], `"acc":0`, `"acc":1`, 1))
			})
		}, `gsm8k.jsonl:41: field "id": second record of sample 1 (repeat 0), which already has a result on line 2`, new(*results.SampleError)},
		{"record of another task", func(t *testing.T, dir string) {
			editSamples(t, dir, "gsm8k", func(lines []string) []string {
				lines[3] = strings.Replace(lines[3], `"task":"gsm8k"`, `"task":"ifeval"`, 1)
				return lines
			})
		}, `gsm8k.jsonl:4: field "task": record of task "ifeval"`, new(*results.SampleError)},
		{"stray id at a new index", func(t *testing.T, dir string) {
			editSamples(t, dir, "gsm8k", func(lines []string) []string {
				return append(lines, `{"task":"gsm8k","id":"extra","index":40,"response":"","scores":{"acc":1}}`+"\n")
			})
		}, "41 records for the 40 selected samples (a stray record, e.g. line 41)", new(*InconsistentError)},
		{"stray id at a taken index", func(t *testing.T, dir string) {
			editSamples(t, dir, "gsm8k", func(lines []string) []string {
				return append(lines, `{"task":"gsm8k","id":"extra","index":7,"response":"","scores":{"acc":1}}`+"\n")
			})
		}, `gsm8k.jsonl:41: field "index": sample extra claims index 7, which sample 7 has on line 8`, new(*results.SampleError)},
		{"score out of range", func(t *testing.T, dir string) {
			editSamples(t, dir, "gsm8k", func(lines []string) []string {
				lines[0] = strings.Replace(lines[0], `"acc":1`, `"acc":100`, 1)
				return lines
			})
		}, `gsm8k.jsonl:1: field "scores.acc": 100 is outside [0, 1]`, new(*results.SampleError)},
		{"counts edited", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s *results.Summary) { s.Tasks["gsm8k"].Scored = 30; s.Tasks["gsm8k"].Errors = 10 })
		}, "30 scored and 10 failed in the summary, 40 and 0 in the samples", new(*InconsistentError)},
		{"aggregate out of range", func(t *testing.T, dir string) {
			editSummary(t, dir, func(s *results.Summary) {
				s.Tasks["gsm8k"].Metrics["acc_macro"] = s.Tasks["gsm8k"].Metrics["acc"]
				m := s.Tasks["gsm8k"].Metrics["acc_macro"]
				m.Mean = 1.5
				s.Tasks["gsm8k"].Metrics["acc_macro"] = m
			})
		}, "acc_macro = 1.5", new(*InconsistentError)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := fakeRun(t, "m", map[string][]float64{"gsm8k": pattern(40, 20), "ifeval": pattern(10, 5)}, 0, 0)
			if _, err := Load(dir); err != nil {
				t.Fatalf("before the edit: %v", err)
			}
			c.edit(t, dir)
			_, err := Load(dir)
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
	dir := fakeRun(t, "m", map[string][]float64{"gsm8k": pattern(10, 5)}, 0, 0)
	editSamples(t, dir, "gsm8k", func(lines []string) []string {
		for i := 10; i < 15; i++ {
			lines = append(lines, fmt.Sprintf(`{"task":"gsm8k","id":"%d","index":%d,"response":"","scores":{"acc":1}}`+"\n", i, i))
		}
		return lines
	})
	m, _ := results.ReadManifest(dir)
	m.Config.Limit = 10
	results.WriteManifest(dir, m)
	r := mustLoad(t, dir)
	if recs, _ := r.Records("gsm8k"); len(recs) != 10 {
		t.Errorf("%d records, want the 10 the run selects", len(recs))
	}
}

// TestNoScoredSamplesNeverZero: a task whose samples all failed has no
// score — not 0.00 — even when its summary claims a metric; a task with
// some failed samples is marked partial. Issue 21.
func TestNoScoredSamplesNeverZero(t *testing.T) {
	t.Parallel()
	dir := fakeRun(t, "m", map[string][]float64{"gsm8k": pattern(40, 20), "ifeval": pattern(10, 5)}, 0, 0)
	editSamples(t, dir, "ifeval", func(lines []string) []string {
		for i := range lines {
			lines[i] = fmt.Sprintf(`{"task":"ifeval","id":"%d","index":%d,"response":"","scores":{},"error":"runtime: boom"}`+"\n", i, i)
		}
		return lines
	})
	editSamples(t, dir, "gsm8k", func(lines []string) []string {
		for i := 0; i < 20; i++ {
			lines[i] = fmt.Sprintf(`{"task":"gsm8k","id":"%d","index":%d,"response":"","scores":{},"error":"runtime: boom"}`+"\n", i, i)
		}
		return lines
	})
	vals := pattern(40, 20)[20:]
	var ones int
	for _, v := range vals {
		ones += int(v)
	}
	editSummary(t, dir, func(s *results.Summary) {
		s.Complete = false
		// The failed task as an old summary showed it: a metric of 0 over 0.
		s.Tasks["ifeval"].Scored, s.Tasks["ifeval"].Errors = 0, 10
		s.Tasks["ifeval"].Metrics["acc"] = stats.Summary{}
		s.Tasks["gsm8k"].Scored, s.Tasks["gsm8k"].Errors = 20, 20
		m := s.Tasks["gsm8k"].Metrics["acc"]
		m.Mean, m.N = float64(ones)/20, 20
		s.Tasks["gsm8k"].Metrics["acc"] = m
	})
	r := mustLoad(t, dir)
	rows, avg, err := SuiteAverage(r, []suite.Entry{{Task: "gsm8k"}, {Task: "ifeval"}}, AverageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rows[1].Score != nil || avg.Value != nil || len(avg.Missing) != 2 ||
		!strings.HasPrefix(avg.Missing[0], "gsm8k (incomplete: 20 of 40") || !strings.HasPrefix(avg.Missing[1], "ifeval (failed: all 10 samples failed") {
		t.Errorf("all-failed task: row %+v, average %+v; want no score", rows[1], avg)
	}
	if !rows[0].Partial() || rows[0].Scored != 20 || rows[0].Samples != 40 {
		t.Errorf("half-failed task: row %+v, want partial 20/40", rows[0])
	}
	b, err := NewBoard([]*Run{r}, BoardOptions{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if g, f := b.Rows[0].Cells["gsm8k"], b.Rows[0].Cells["ifeval"]; g.State != CellPartial || f.State != CellFailed || f.HasScore() {
		t.Errorf("board cells gsm8k %+v, ifeval %+v; want partial and failed without a score", g, f)
	}
	var rep strings.Builder
	(&SuiteReport{Suite: "s", Rows: rows}).Print(&rep)
	if !strings.Contains(rep.String(), "* partial: only some selected samples were scored (gsm8k 20 of 40)") {
		t.Errorf("suite table:\n%s\nwant the partial task marked", rep.String())
	}
}
