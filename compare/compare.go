// Package compare pairs the samples of two runs, task by task, and tests
// the difference: exact McNemar for pass/fail metrics, paired bootstrap
// otherwise. The gate (package gate) decides on its comparisons.
package compare

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/stats"
)

// Options configure a comparison.
type Options struct {
	// Alpha is the significance level (0: 0.05).
	Alpha float64
	// Resamples for the paired bootstrap (0: 10000).
	Resamples int
	// Seed makes the bootstrap reproducible.
	Seed uint64
	// Tasks restricts the comparison ("" = every task both runs have).
	Tasks []string
	// AllowUnlike compares runs that differ in what decides scores
	// (Unlike) instead of refusing them; the comparison lists the
	// differences in Unlike.
	AllowUnlike bool
	// Progress, when not nil, is told of each task of A considered
	// (compared or skipped), in A's order.
	Progress func(task string)
}

// TaskComparison is the comparison of one task.
type TaskComparison struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	stats.PairedResult
	// AggregateA/B are the summary's task-level values of Metric (they can
	// differ from the paired means when the metric is aggregated, e.g.
	// macro over subjects).
	AggregateA  float64 `json:"aggregate_a"`
	AggregateB  float64 `json:"aggregate_b"`
	Significant bool    `json:"significant"`
	// ChanceA/B are each run's primary metric against random answers,
	// when the task knows its baseline.
	ChanceA *results.Chance `json:"chance_a,omitempty"`
	ChanceB *results.Chance `json:"chance_b,omitempty"`
	// Basis says what the paired test ran on when it is not Metric's own
	// per-sample values ("pass@1 per problem from per-sample pass").
	Basis string `json:"basis,omitempty"`
	// NoTest says why no paired test could be run ("" when one was).
	NoTest string `json:"no_test,omitempty"`
}

// Tested reports whether a paired test was run.
func (tc TaskComparison) Tested() bool { return tc.NoTest == "" }

// Comparison is the result of comparing run B against run A.
type Comparison struct {
	A, B  string           `json:"-"`
	Alpha float64          `json:"alpha"`
	Tasks []TaskComparison `json:"tasks"`
	// Skipped lists tasks present in only one run.
	Skipped []string `json:"skipped,omitempty"`
	// Unlike lists the settings deciding scores in which the runs differ
	// (only with Options.AllowUnlike: otherwise they are refused).
	Unlike []string `json:"unlike,omitempty"`
	// LimitA and LimitB are the runs' --limit (0: every sample): a
	// limited run's numbers are not the benchmark's.
	LimitA int `json:"limit_a,omitempty"`
	LimitB int `json:"limit_b,omitempty"`
	// Reproduction compares the responses when the two runs have the same
	// configuration (nil otherwise).
	Reproduction *Reproduction `json:"reproduction,omitempty"`
}

// AlignmentError explains why two runs cannot be compared on a task.
type AlignmentError struct {
	Task   string
	Reason string
	// Unpaired is set when samples of one run have no partner in the
	// other (a different sample selection, or failed samples).
	Unpaired bool
}

func (e *AlignmentError) Error() string {
	return fmt.Sprintf("task %s: samples do not align: %s", e.Task, e.Reason)
}

// Runs compares b against a, task by task, on each task's primary
// metric, pairing samples by (id, repeat). It refuses (AlignmentError) when
// a task's dataset differs or the sample ids differ.
func Runs(a, b *rundir.Run, o Options) (*Comparison, error) {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Resamples == 0 {
		o.Resamples = 10000
	}
	c := &Comparison{A: a.Dir, B: b.Dir, Alpha: o.Alpha, LimitA: a.Manifest.Config.Limit, LimitB: b.Manifest.Config.Limit}
	if diffs := Unlike(a, b); len(diffs) > 0 {
		if !o.AllowUnlike {
			return nil, &UnlikeError{Diffs: diffs}
		}
		c.Unlike = diffs
	}
	want := map[string]bool{}
	for _, t := range o.Tasks {
		want[t] = true
	}
	progress := func(string) {}
	if o.Progress != nil {
		progress = o.Progress
	}
	for _, task := range a.Tasks() {
		if len(want) > 0 && !want[task] {
			continue
		}
		tc, skip, err := compareOrSkip(a, b, task, o)
		if err != nil {
			return nil, err
		}
		progress(task)
		if skip != "" {
			c.Skipped = append(c.Skipped, task+" ("+skip+")")
			continue
		}
		c.Tasks = append(c.Tasks, *tc)
	}
	for _, task := range b.Tasks() {
		if _, ok := a.Summary.Tasks[task]; !ok && (len(want) == 0 || want[task]) {
			c.Skipped = append(c.Skipped, task+" (only in B)")
		}
	}
	if len(c.Tasks) == 0 {
		return nil, &NothingToCompareError{Skipped: c.Skipped}
	}
	var tasks []string
	for _, t := range c.Tasks {
		tasks = append(tasks, t.Task)
	}
	var err error
	if c.Reproduction, err = Reproduce(a, b, tasks); err != nil {
		return nil, err
	}
	return c, nil
}

// compareOrSkip compares one task of A, or says why it is skipped.
func compareOrSkip(a, b *rundir.Run, task string, o Options) (*TaskComparison, string, error) {
	if _, ok := b.Summary.Tasks[task]; !ok {
		return nil, "only in A", nil
	}
	if why := unscored(a, b, task); why != "" {
		return nil, why, nil
	}
	tc, err := compareTask(a, b, task, o)
	return tc, "", err
}

// NothingToCompareError is returned when the runs share no task that both
// scored.
type NothingToCompareError struct {
	Skipped []string
}

func (e *NothingToCompareError) Error() string {
	if len(e.Skipped) == 0 {
		return "the runs have no task in common"
	}
	return "the runs have no task in common that both scored: " + strings.Join(e.Skipped, ", ")
}

// unscored says why task cannot be compared because one run measured
// nothing of it ("" when both scored samples).
func unscored(a, b *rundir.Run, task string) string {
	var why []string
	for _, side := range []struct {
		name string
		r    *rundir.Run
	}{{"A", a}, {"B", b}} {
		if ts := side.r.Summary.Tasks[task]; ts.Scored == 0 {
			why = append(why, fmt.Sprintf("%s in %s: no scored samples", ts.Status(), side.name))
		}
	}
	return strings.Join(why, "; ")
}

func compareTask(a, b *rundir.Run, task string, o Options) (*TaskComparison, error) {
	ca, _ := a.TaskConfig(task)
	cb, _ := b.TaskConfig(task)
	if diff := diffFiles(ca.DatasetFiles, cb.DatasetFiles); diff != "" {
		return nil, &AlignmentError{Task: task, Reason: "different dataset files: " + diff}
	}
	sa, sb := a.Summary.Tasks[task], b.Summary.Tasks[task]
	metric := sa.PrimaryMetric
	if sb.PrimaryMetric != metric {
		return nil, &AlignmentError{Task: task, Reason: fmt.Sprintf("different primary metrics %q and %q (task versions %s and %s)", metric, sb.PrimaryMetric, sa.Version, sb.Version)}
	}
	va, basis, err := pairedValues(a, task, metric)
	if err != nil {
		return nil, err
	}
	vb, _, err := pairedValues(b, task, metric)
	if err != nil {
		return nil, err
	}
	var onlyA, onlyB []string
	for k := range va {
		if _, ok := vb[k]; !ok {
			onlyA = append(onlyA, k.ID)
		}
	}
	for k := range vb {
		if _, ok := va[k]; !ok {
			onlyB = append(onlyB, k.ID)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	if len(onlyA) > 0 || len(onlyB) > 0 {
		return nil, &AlignmentError{Task: task, Reason: fmt.Sprintf("%d samples only in A (e.g. %s), %d only in B (e.g. %s)",
			len(onlyA), firstFew(onlyA), len(onlyB), firstFew(onlyB)), Unpaired: true}
	}
	tc := &TaskComparison{Task: task, Metric: metric, Basis: basis,
		AggregateA: sa.Metrics[metric].Mean, AggregateB: sb.Metrics[metric].Mean, ChanceA: sa.Chance, ChanceB: sb.Chance}
	if len(va) == 0 {
		// Aggregate-only metric: no per-sample pairing possible.
		tc.PairedResult = stats.PairedResult{MeanA: tc.AggregateA, MeanB: tc.AggregateB, Diff: tc.AggregateB - tc.AggregateA, P: 1, Test: "none (no per-sample values)"}
		tc.NoTest = fmt.Sprintf("no per-sample values of %s", metric)
		return tc, nil
	}
	keys := slices.SortedFunc(maps.Keys(va), results.Key.Compare)
	xa := make([]float64, len(keys))
	xb := make([]float64, len(keys))
	for i, k := range keys {
		xa[i], xb[i] = va[k], vb[k]
	}
	tc.PairedResult = stats.Paired(xa, xb, o.Resamples, o.Seed)
	tc.Significant = tc.P < o.Alpha
	return tc, nil
}

func diffFiles(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; ok && w != v {
			out = append(out, fmt.Sprintf("%s sha256 %.12s vs %.12s", k, v, w))
		}
	}
	return strings.Join(out, "; ")
}

func firstFew(ids []string) string {
	if len(ids) == 0 {
		return "-"
	}
	if len(ids) > 3 {
		return strings.Join(ids[:3], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}
