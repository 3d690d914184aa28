package rundir

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
	"github.com/pocketeval/pocketeval/suite"
)

// AverageOptions configure SuiteAverage.
type AverageOptions struct {
	// Resamples is the number of bootstrap draws for the average's 95%
	// interval; 0 computes no interval (Lo and Hi stay 0).
	Resamples int
	// Seed makes the bootstrap deterministic.
	Seed uint64
}

// Average is a suite average (×100) over a list of tasks of one run.
type Average struct {
	// Value is the unweighted mean of the tasks' scores; nil unless the
	// average is defined (see SuiteAverage).
	Value *float64
	// Lo and Hi bound Value's 95% bootstrap interval when one was asked
	// for.
	Lo, Hi float64
	// Partial is the mean over the tasks that have a score; nil when none
	// has.
	Partial *float64
	// Scored counts the tasks with a score and Complete those of them
	// whose every selected sample was scored; Missing names each task that
	// is not complete, with the reason ("ceval (failed: …)", "mmlu
	// (incomplete: …)", or the bare name of a task the run lacks).
	Scored   int
	Complete int
	Missing  []string
}

// SuiteAverage is the one place pocketeval turns a run into per-task scores
// and a suite average: `suite`, `gate`, `leaderboard` and the suite table of
// `run` all call it, so they show the same numbers.
//
// Each entry's score is the entry's metric, else the task's headline metric
// (results.TaskSummary.Headline: the number the benchmark's authors
// publish), ×100 with its 95% interval. A task the run lacks, or in which
// no sample was scored, has no score; a task with failed or missing
// samples has a score over the scored ones but is not complete. The
// average is the unweighted mean of the scores, and it is defined only
// when every entry is present and complete (results.TaskComplete);
// otherwise Value is nil and Partial holds the mean over the scored ones.
//
// The bootstrap resamples each task independently: by its per-sample
// values when the score is their mean, otherwise (macro averages, pass@k)
// by a normal draw with the score's standard error.
func SuiteAverage(r *Run, entries []suite.Entry, o AverageOptions) ([]SuiteRow, Average, error) {
	var avg Average
	rows := make([]SuiteRow, 0, len(entries))
	var draws []taskDraw
	for _, e := range entries {
		row, m, why, err := taskScore(r, e)
		if err != nil {
			return nil, avg, err
		}
		rows = append(rows, row)
		if row.Status != results.TaskComplete {
			avg.Missing = append(avg.Missing, e.Task+why)
		} else {
			avg.Complete++
		}
		if row.Score == nil {
			continue
		}
		d := taskDraw{mean: m.Mean, se: m.Stderr}
		if o.Resamples > 0 {
			if d.values, err = r.sampleValues(e.Task, row.Metric, m.Mean); err != nil {
				return nil, avg, err
			}
		}
		draws = append(draws, d)
	}
	avg.Scored = len(draws)
	if len(draws) == 0 {
		return rows, avg, nil
	}
	var sum float64
	for _, d := range draws {
		sum += d.mean
	}
	p := 100 * sum / float64(len(draws))
	avg.Partial = &p
	if !defined(avg, len(entries)) {
		return rows, avg, nil
	}
	v := p
	avg.Value = &v
	if o.Resamples > 0 {
		avg.Lo, avg.Hi = bootstrapAverage(draws, o.Resamples, o.Seed)
	}
	return rows, avg, nil
}

// defined is the rule for when a suite average exists: every task is
// present and complete.
func defined(a Average, tasks int) bool { return tasks > 0 && a.Complete == tasks }

// taskScore is entry e's row in run r, with the metric's summary. A row
// without Score has no score; why says why a task is not complete ("" when
// the task is not in the run).
func taskScore(r *Run, e suite.Entry) (row SuiteRow, m stats.Summary, why string, err error) {
	row = SuiteRow{Task: e.Task, Reported: e.Reported, Note: e.Note, Assumed: e.Assumed, Status: results.TaskMissing}
	ts, ok := r.Summary.Tasks[e.Task]
	if !ok {
		return row, m, "", nil
	}
	row.Metric = e.Metric
	if row.Metric == "" {
		row.Metric = ts.Headline()
	}
	row.Scored, row.Samples = ts.Scored, ts.Samples
	row.Status = ts.Status()
	row.Chance = ts.Chance
	switch row.Status {
	case results.TaskFailed:
		why = fmt.Sprintf(" (failed: all %d samples failed; first: %s)", ts.Errors, ts.FirstError)
	case results.TaskMissing:
		why = " (no scored samples)"
	case results.TaskIncomplete:
		why = fmt.Sprintf(" (incomplete: %d of %d samples scored)", ts.Scored, ts.Samples)
	}
	m, ok = ts.Metrics[row.Metric]
	switch {
	case !ok && ts.Scored == 0:
		return row, m, why, nil
	case !ok:
		return row, m, why, fmt.Errorf("task %s has no metric %q in %s (its metrics: %s)", e.Task, row.Metric, r.Dir, strings.Join(metricNames(ts), ", "))
	}
	v := results.Points(row.Metric, m.Mean)
	row.Score, row.Lo, row.Hi, row.N = &v, results.Points(row.Metric, m.Lo), results.Points(row.Metric, m.Hi), m.N
	if e.Reported != nil {
		d := v - *e.Reported
		row.Delta = &d
	}
	return row, m, why, nil
}

// metricNames lists a task summary's metrics, sorted.
func metricNames(ts *results.TaskSummary) []string {
	out := make([]string, 0, len(ts.Metrics))
	for k := range ts.Metrics {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// taskDraw is what the bootstrap needs of one task.
type taskDraw struct {
	values []float64 // per-sample values whose mean is the score; nil: use se
	mean   float64
	se     float64
}

// sampleValues returns the per-sample values of metric in key order when
// their mean is the task's score (mean), else nil.
func (r *Run) sampleValues(task, metric string, mean float64) ([]float64, error) {
	per, err := r.PerSample(task, metric)
	if err != nil || len(per) == 0 {
		return nil, err
	}
	keys := slices.SortedFunc(maps.Keys(per), results.Key.Compare)
	values := make([]float64, len(keys))
	for i, k := range keys {
		values[i] = per[k]
	}
	if math.Abs(stats.Mean(values)-mean) >= 1e-9 {
		return nil, nil
	}
	return values, nil
}

// bootstrapAverage returns the 95% percentile interval (×100) of the mean
// over tasks, each task resampled independently.
func bootstrapAverage(draws []taskDraw, resamples int, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 42))
	boots := make([]float64, resamples)
	for b := range boots {
		var s float64
		for _, d := range draws {
			if d.values == nil {
				s += d.mean + d.se*rng.NormFloat64()
				continue
			}
			var t float64
			for range d.values {
				t += d.values[rng.IntN(len(d.values))]
			}
			s += t / float64(len(d.values))
		}
		boots[b] = 100 * s / float64(len(draws))
	}
	sort.Float64s(boots)
	return stats.Percentile(boots, 0.025), stats.Percentile(boots, 0.975)
}
