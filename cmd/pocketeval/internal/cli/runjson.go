package cli

import (
	"maps"
	"slices"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/scorers/selective"
	"github.com/pocketeval/pocketeval/stats"
)

// runJSON is `run --json`: the run's summary in the --json convention
// (docs/json.md). Scores are points (×100), as the table shows them; a
// task with nothing scored has no numbers (null), never 0.
type runJSON struct {
	Out      string     `json:"out"`
	Complete bool       `json:"complete"`
	Tasks    []taskJSON `json:"tasks"`
	// Groups are the run's task groups (lm-eval group files), each
	// before its subgroups; absent when the run has none.
	Groups []groupJSON `json:"groups,omitempty"`
}

// groupJSON is one task group: its aggregated metrics (points, with
// lm-eval's pooled standard error and the interval from it; null when
// a task had none) over the tasks under it.
type groupJSON struct {
	Group    string       `json:"group"`
	Alias    string       `json:"alias,omitempty"`
	Members  []string     `json:"members"`
	Tasks    []string     `json:"tasks"`
	Metric   string       `json:"metric"`
	Score    *float64     `json:"score"`
	Samples  int          `json:"samples"`
	Metrics  []metricJSON `json:"metrics"`
	Notes    []string     `json:"notes,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
}

type taskJSON struct {
	Task string `json:"task"`
	// Status is results.TaskSummary.Status: complete, incomplete, failed
	// or missing.
	Status  string `json:"status"`
	Version string `json:"version"`
	// Metric is the headline metric and Score its value.
	Metric          string          `json:"metric"`
	Score           *float64        `json:"score"`
	Samples         int             `json:"samples"`
	Scored          int             `json:"scored"`
	Errors          int             `json:"errors"`
	RetryableErrors int             `json:"retryable_errors"`
	FirstError      string          `json:"first_error,omitempty"`
	Metrics         []metricJSON    `json:"metrics"`
	ExtractionFail  *float64        `json:"extraction_fail,omitempty"`
	Truncated       *float64        `json:"truncated,omitempty"`
	ThinkingCut     *float64        `json:"thinking_truncated,omitempty"`
	Breakdown       []breakdownJS   `json:"breakdown,omitempty"`
	Notes           []string        `json:"notes,omitempty"`
	Warnings        []string        `json:"warnings,omitempty"`
	Timing          *results.Timing `json:"timing,omitempty"`
	// Chance is the primary metric against random answers, where the
	// task knows its baseline.
	Chance *chanceJSON `json:"chance,omitempty"`
	// Decision is a decision task's selective-prediction report
	// (proportions, not points: see docs/decisions.md).
	Decision *selective.Report `json:"decision,omitempty"`
}

// chanceJSON is a score against random answers: the baseline in points,
// the exact one-sided p-value, and whether the score is above chance.
type chanceJSON struct {
	Metric   string  `json:"metric"`
	Baseline float64 `json:"baseline"`
	Correct  int     `json:"correct"`
	N        int     `json:"n"`
	P        float64 `json:"p"`
	Above    bool    `json:"above_chance"`
}

func newChanceJSON(c *results.Chance) *chanceJSON {
	if c == nil {
		return nil
	}
	return &chanceJSON{Metric: c.Metric, Baseline: 100 * c.Baseline, Correct: c.Correct, N: c.N, P: c.P, Above: c.Above}
}

// metricJSON is one metric; CILo and CIHi are null when the metric has
// no interval (a task-level aggregate without a standard error).
type metricJSON struct {
	Name   string   `json:"name"`
	Value  float64  `json:"value"`
	CILo   *float64 `json:"ci_lo"`
	CIHi   *float64 `json:"ci_hi"`
	Stderr float64  `json:"stderr"`
	N      int      `json:"n"`
}

// breakdownJS is one value of a task's breakdown (a subject's or
// category's metric).
type breakdownJS struct {
	Group  string  `json:"group"`
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
}

func newRunJSON(out string, s *results.Summary) runJSON {
	doc := runJSON{Out: out, Complete: s.Complete, Tasks: []taskJSON{}}
	for _, name := range s.Order {
		ts := s.Tasks[name]
		t := taskJSON{
			Task: name, Status: ts.Status(), Version: ts.Version, Metric: ts.Headline(),
			Samples: ts.Samples, Scored: ts.Scored, Errors: ts.Errors, RetryableErrors: ts.RetryableErrors,
			FirstError: ts.FirstError, Metrics: []metricJSON{},
			ExtractionFail: points(ts.ExtractionFailureRate), Truncated: points(ts.TruncationRate),
			ThinkingCut: points(ts.ThinkingTruncatedRate),
			Notes:       ts.Notes, Warnings: ts.Warnings, Timing: ts.Timing,
			Chance: newChanceJSON(ts.Chance), Decision: ts.Decision,
		}
		if ts.Scored > 0 {
			for _, k := range sortedMetricNames(ts) {
				t.Metrics = append(t.Metrics, newMetricJSON(k, ts.Metrics[k]))
			}
			if m, ok := ts.Metrics[t.Metric]; ok {
				v := results.Points(t.Metric, m.Mean)
				t.Score = &v
			}
		}
		for _, g := range slices.Sorted(maps.Keys(ts.Breakdown)) {
			for _, k := range slices.Sorted(maps.Keys(ts.Breakdown[g])) {
				t.Breakdown = append(t.Breakdown, breakdownJS{Group: g, Metric: k, Value: results.Points(k, ts.Breakdown[g][k])})
			}
		}
		doc.Tasks = append(doc.Tasks, t)
	}
	for _, name := range s.GroupOrder {
		g := s.Groups[name]
		gj := groupJSON{Group: name, Alias: g.Alias, Members: g.Members, Tasks: g.Tasks, Metric: g.Primary,
			Samples: g.Samples, Metrics: []metricJSON{}, Notes: g.Notes, Warnings: g.Warnings}
		names := slices.Sorted(maps.Keys(g.Metrics))
		if _, ok := g.Metrics[g.Primary]; ok {
			names = append([]string{g.Primary}, slices.DeleteFunc(names, func(k string) bool { return k == g.Primary })...)
			v := results.Points(g.Primary, g.Metrics[g.Primary].Mean)
			gj.Score = &v
		}
		for _, k := range names {
			gj.Metrics = append(gj.Metrics, newMetricJSON(k, g.Metrics[k]))
		}
		doc.Groups = append(doc.Groups, gj)
	}
	return doc
}

func newMetricJSON(name string, m stats.Summary) metricJSON {
	mj := metricJSON{Name: name, Value: results.Points(name, m.Mean), Stderr: results.Points(name, m.Stderr), N: m.N}
	if hasInterval(m) {
		lo, hi := results.Points(name, m.Lo), results.Points(name, m.Hi)
		mj.CILo, mj.CIHi = &lo, &hi
	}
	return mj
}

// sortedMetricNames lists a task's metrics: the headline first, then the
// others by name, as the table does.
func sortedMetricNames(ts *results.TaskSummary) []string {
	head := ts.Headline()
	var out []string
	if _, ok := ts.Metrics[head]; ok {
		out = append(out, head)
	}
	for _, k := range slices.Sorted(maps.Keys(ts.Metrics)) {
		if k != head {
			out = append(out, k)
		}
	}
	return out
}

func points(x *float64) *float64 {
	if x == nil {
		return nil
	}
	v := 100 * *x
	return &v
}
