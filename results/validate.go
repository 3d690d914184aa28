package results

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
)

// SampleError is a samples-file line that cannot be used: malformed, a
// second result for one sample, a record of another task, a score out of
// range. Field is "" when the line as a whole is wrong.
type SampleError struct {
	Path  string
	Line  int
	Field string
	Err   error
}

func (e *SampleError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %q: %v", e.Path, e.Line, e.Field, e.Err)
}

func (e *SampleError) Unwrap() error { return e.Err }

// MetricRange is the range of a metric's per-sample values. Every metric
// pocketeval scores per sample is a proportion in [0, 1] — correct or
// not, passed or not, a share of instructions followed, an F-measure —
// which reports show ×100, except lm-eval's Brier score, a sum of squares
// over the options in [0, 2].
func MetricRange(metric string) (lo, hi float64) {
	if metric == "brier_score" {
		return 0, 2
	}
	return 0, 1
}

// IsRate reports whether a task-level metric is a proportion reports show
// ×100; the perplexities and bits per byte of log-likelihood tasks are
// not (they are task-level only, never per-sample scores).
func IsRate(metric string) bool {
	switch metric {
	case "perplexity", "word_perplexity", "byte_perplexity", "bits_per_byte":
		return false
	}
	return true
}

// Points is x as reports show metric: a rate ×100 (IsRate), a perplexity
// or bits per byte as it is.
func Points(metric string, x float64) float64 {
	if IsRate(metric) {
		return 100 * x
	}
	return x
}

// ReadTaskSamples reads task's samples file in dir (ReadSamples) and
// checks every record against it: each must be a record of task, and each
// score a finite number within MetricRange. The first violation is a
// *SampleError naming the file, the line and the field.
func ReadTaskSamples(dir, task string) ([]Record, ReadReport, error) {
	path := SamplesPath(dir, task)
	recs, rep, err := ReadSamples(path)
	if err != nil {
		return nil, rep, err
	}
	for i := range recs {
		if err := checkRecord(path, task, &recs[i]); err != nil {
			return nil, rep, err
		}
	}
	return recs, rep, nil
}

func checkRecord(path, task string, r *Record) error {
	if r.Task != task {
		return &SampleError{Path: path, Line: r.Line, Field: "task", Err: fmt.Errorf("record of task %q in the samples of %s", r.Task, task)}
	}
	if r.Repeat < 0 || r.Index < 0 {
		return &SampleError{Path: path, Line: r.Line, Field: "index", Err: errors.New("negative index or repeat")}
	}
	for _, k := range sortedMetricNames(r.Scores) {
		v := r.Scores[k]
		if lo, hi := MetricRange(k); math.IsNaN(v) || v < lo || v > hi {
			return &SampleError{Path: path, Line: r.Line, Field: "scores." + k, Err: fmt.Errorf("%v is outside [%g, %g]", v, lo, hi)}
		}
	}
	return nil
}

// Selects reports whether the run configured by c selects record r: its
// repeat is one of the run's, and its sample lies within the run's limit
// and shard. A samples file may hold records outside the selection (a run
// resumed with a smaller --limit keeps what it had); they count nowhere.
func (c Config) Selects(task string, r *Record) bool {
	if r.Repeat >= max(c.SamplesPerTask, 1) {
		return false
	}
	if c.Limit > 0 && r.Index >= c.Limit {
		return false
	}
	return !c.Shard.Active() || ShardOf(task, r.ID, c.Shard.Count) == c.Shard.Index
}

// ShardOf returns the shard (0..count-1) a sample belongs to: FNV-1a of
// "task\x00id" modulo count. Stable across machines and versions.
func ShardOf(task, id string, count int) int {
	h := fnv.New64a()
	h.Write([]byte(task))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(count))
}

func sortedMetricNames(m map[string]float64) []string {
	return slices.Sorted(maps.Keys(m))
}
