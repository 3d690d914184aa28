package rundir

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// InconsistentError is a result directory whose summary.json disagrees
// with its samples: the summary is a cache of the samples, so such a
// directory was edited or mixed up and its numbers are not shown.
type InconsistentError struct {
	Dir    string
	Task   string
	Reason string
}

func (e *InconsistentError) Error() string {
	return fmt.Sprintf("%s: summary.json disagrees with samples/%s.jsonl: %s (the summary is a cache of the samples: resume the run, the same command again, to rewrite it)", e.Dir, e.Task, e.Reason)
}

// verify makes the run's samples authoritative. For every task it reads
// the samples (results.ReadTaskSamples: records of the task, one result
// per sample, scores within range, each refused with file and line),
// keeps the records the run's configuration selects, and recomputes from
// them what a summary holds: how many samples were scored, failed or are
// missing, and the summary of every per-sample metric. The cached summary
// must agree on each; the recomputed values then replace the cached ones.
//
// Task-level aggregates (macro averages, pass@k) need the dataset to be
// recomputed; they are kept when every per-sample number of their task
// agrees and they lie within their metric's range, and dropped when the
// task has no scored sample (so it shows as "no scored samples", never as
// 0.00).
func (r *Run) verify() error {
	order := r.Summary.Order
	if len(order) != len(r.Summary.Tasks) {
		return &InconsistentError{Dir: r.Dir, Task: "*", Reason: fmt.Sprintf("it orders %d tasks but holds %d", len(order), len(r.Summary.Tasks))}
	}
	cfg := r.Manifest.Config
	repeats := max(cfg.SamplesPerTask, 1)
	incomplete := false
	for _, task := range order {
		ts, ok := r.Summary.Tasks[task]
		if !ok {
			return &InconsistentError{Dir: r.Dir, Task: task, Reason: "the task is listed but has no summary"}
		}
		recs, _, err := results.ReadTaskSamples(r.Dir, task)
		if err != nil {
			return err
		}
		fresh, err := recompute(r.Dir, task, cfg, recs)
		if err != nil {
			return err
		}
		want := ts.Samples
		if tc, ok := r.TaskConfig(task); ok {
			want = tc.Samples * repeats
		}
		bad := func(format string, args ...any) error {
			return &InconsistentError{Dir: r.Dir, Task: task, Reason: fmt.Sprintf(format, args...)}
		}
		switch {
		case ts.Samples != want:
			return bad("%d samples, the manifest selects %d", ts.Samples, want)
		case fresh.scored+fresh.errors > want:
			return bad("%d records for the %d selected samples (a stray record, e.g. line %d)", fresh.scored+fresh.errors, want, fresh.lastLine)
		case ts.Scored != fresh.scored || ts.Errors != fresh.errors:
			return bad("%d scored and %d failed in the summary, %d and %d in the samples", ts.Scored, ts.Errors, fresh.scored, fresh.errors)
		}
		if fresh.scored+fresh.errors < want {
			incomplete = true
		}
		for _, k := range slices.Sorted(maps.Keys(fresh.metrics)) {
			got, cached := fresh.metrics[k], ts.Metrics[k]
			if cached.N != got.N || !near(cached.Mean, got.Mean) {
				return bad("%s is %.6g over %d samples in the summary, %.6g over %d in the samples", k, cached.Mean, cached.N, got.Mean, got.N)
			}
			ts.Metrics[k] = got
		}
		for _, k := range slices.Sorted(maps.Keys(ts.Metrics)) {
			if _, ok := fresh.metrics[k]; ok {
				continue
			}
			if fresh.scored == 0 {
				delete(ts.Metrics, k) // nothing was scored: no aggregate either
				continue
			}
			m := ts.Metrics[k]
			if lo, hi := results.MetricRange(k); !inRange(m.Mean, lo, hi) || !inRange(m.Lo, lo, hi) || !inRange(m.Hi, lo, hi) {
				return bad("%s = %v [%v, %v] is outside [%g, %g]", k, m.Mean, m.Lo, m.Hi, lo, hi)
			}
		}
		ts.Primary = ts.Metrics[ts.PrimaryMetric].Mean
	}
	if r.Summary.Complete && incomplete {
		return &InconsistentError{Dir: r.Dir, Task: "*", Reason: "it says complete, but some selected samples have no record"}
	}
	return nil
}

// recomputed is what a task's samples say.
type recomputed struct {
	scored, errors int
	metrics        map[string]stats.Summary
	lastLine       int
}

// recompute summarises the selected records of task, refusing two
// samples that claim one dataset index.
func recompute(dir, task string, cfg results.Config, recs []results.Record) (*recomputed, error) {
	rc := &recomputed{metrics: map[string]stats.Summary{}}
	values := map[string][]float64{}
	byIndex := map[int]*results.Record{}
	path := results.SamplesPath(dir, task)
	for i := range recs {
		rec := &recs[i]
		if !cfg.Selects(task, rec) {
			continue
		}
		if prev, ok := byIndex[rec.Index]; ok && prev.ID != rec.ID {
			return nil, &results.SampleError{Path: path, Line: rec.Line, Field: "index", Err: fmt.Errorf("sample %s claims index %d, which sample %s has on line %d", rec.ID, rec.Index, prev.ID, prev.Line)}
		}
		byIndex[rec.Index] = rec
		rc.lastLine = rec.Line
		if rec.Error != "" {
			rc.errors++
			continue
		}
		rc.scored++
		for k, v := range rec.Scores {
			values[k] = append(values[k], v)
		}
	}
	for k, xs := range values {
		rc.metrics[k] = stats.Summarize(xs)
	}
	return rc, nil
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func inRange(x, lo, hi float64) bool { return !math.IsNaN(x) && x >= lo-1e-12 && x <= hi+1e-12 }
