package results

import (
	"path/filepath"

	"github.com/pocketeval/pocketeval/scorers/selective"
	"github.com/pocketeval/pocketeval/stats"
)

// Summary is summary.json.
type Summary struct {
	SchemaVersion int `json:"schema_version"`
	// Complete is false when some selected samples are missing or errored;
	// such a summary is never presented as a finished result.
	Complete bool                    `json:"complete"`
	Tasks    map[string]*TaskSummary `json:"tasks"`
	// Order lists the task names in run order.
	Order []string `json:"order"`
	// Groups are the run's task groups (lm-eval group files) with their
	// aggregated metrics; GroupOrder lists them, each group before its
	// subgroups.
	Groups     map[string]*GroupSummary `json:"groups,omitempty"`
	GroupOrder []string                 `json:"group_order,omitempty"`
}

// TaskSummary holds one task's numbers.
type TaskSummary struct {
	Version       string `json:"version"`
	PrimaryMetric string `json:"primary_metric"`
	// Primary is the primary metric's value (copied for convenience).
	Primary float64 `json:"primary"`
	// HeadlineMetric is the metric the benchmark publishes, when it is a
	// task-level aggregate rather than the per-sample primary metric.
	HeadlineMetric string `json:"headline_metric,omitempty"`
	// Metrics maps metric name → summary over samples. Task-level metrics
	// from an aggregator (macro averages, pass@k) have N = number of
	// samples and no interval unless the aggregator gives one.
	Metrics map[string]stats.Summary `json:"metrics"`
	// Samples is the number of selected samples; Scored how many have a
	// score (no error); Errors how many failed.
	Samples int `json:"samples"`
	Scored  int `json:"scored"`
	Errors  int `json:"errors"`
	// RetryableErrors counts the Errors a later attempt may not meet
	// (Record.Retryable); running the same command again retries them.
	RetryableErrors int `json:"retryable_errors,omitempty"`
	// FirstError is the error of the first failed sample (dataset order).
	FirstError string `json:"first_error,omitempty"`
	// ExtractionFailureRate and TruncationRate, where they apply.
	ExtractionFailureRate *float64 `json:"extraction_failure_rate,omitempty"`
	TruncationRate        *float64 `json:"truncation_rate,omitempty"`
	// ThinkingTruncatedRate is the share of generated responses cut off by
	// the token limit inside their reasoning block (so with no answer);
	// set when any response reasoned.
	ThinkingTruncatedRate *float64 `json:"thinking_truncated_rate,omitempty"`
	// Breakdown: group → metric → value (subjects, categories, sub-tasks).
	Breakdown map[string]map[string]float64 `json:"breakdown,omitempty"`
	// Decision is a decision task's selective-prediction report (the
	// risk–coverage curve, the operating threshold, calibration).
	Decision *selective.Report `json:"decision,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
	Warnings []string          `json:"warnings,omitempty"`
	// Chance compares the primary metric with random answers, for tasks
	// that know their random baseline and a 0/1 primary metric; nil
	// otherwise.
	Chance *Chance `json:"chance,omitempty"`
	// Timing holds speed figures; they vary between runs and are kept
	// apart from the scores.
	Timing *Timing `json:"timing,omitempty"`
}

// Chance is a task's score against random answers: the baseline of its
// metric and the exact test of stats.AboveChance over the scored samples.
type Chance struct {
	Metric string `json:"metric"`
	stats.Chance
}

// AtChance reports whether the task's score is not significantly above
// what random answers score (reports grey it out).
func (ts *TaskSummary) AtChance() bool { return ts != nil && ts.Chance != nil && !ts.Chance.Above }

// Task statuses (TaskSummary.Status).
const (
	TaskComplete   = "complete"   // every selected sample scored
	TaskIncomplete = "incomplete" // some scored, some failed or missing
	TaskFailed     = "failed"     // nothing scored, some samples failed
	TaskMissing    = "missing"    // nothing scored, nothing failed
)

// Status says how much of the task's selection was measured: only a
// complete task's numbers are final, and a failed or missing task has no
// numbers at all (never 0).
func (ts *TaskSummary) Status() string {
	switch {
	case ts == nil:
		return TaskMissing
	case ts.Scored > 0 && ts.Scored == ts.Samples && ts.Errors == 0:
		return TaskComplete
	case ts.Scored > 0:
		return TaskIncomplete
	case ts.Errors > 0:
		return TaskFailed
	}
	return TaskMissing
}

// Headline returns the metric the benchmark publishes: HeadlineMetric when
// the task's aggregator named one (macro averages over subjects), else the
// primary metric. Every report of a task's score (the run table, suites,
// gates and leaderboards) shows this metric.
func (ts *TaskSummary) Headline() string {
	if ts.HeadlineMetric != "" {
		if _, ok := ts.Metrics[ts.HeadlineMetric]; ok {
			return ts.HeadlineMetric
		}
	}
	return ts.PrimaryMetric
}

// Timing is the per-task speed summary (medians over samples that report
// them).
type Timing struct {
	TTFTMsMedian      float64 `json:"ttft_ms_median,omitempty"`
	PrefillTPSMedian  float64 `json:"prefill_tps_median,omitempty"`
	DecodeTPSMedian   float64 `json:"decode_tps_median,omitempty"`
	LatencyMsMedian   float64 `json:"latency_ms_median,omitempty"`
	CompletionTokens  int     `json:"completion_tokens"`
	PromptTokens      int     `json:"prompt_tokens"`
	SamplesWithTiming int     `json:"samples_with_timing"`
}

// ReadSummary reads dir/summary.json.
func ReadSummary(dir string) (*Summary, error) {
	var s Summary
	if err := readJSON(filepath.Join(dir, SummaryFile), &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// WriteSummary writes dir/summary.json atomically.
func WriteSummary(dir string, s *Summary) error {
	s.SchemaVersion = SchemaVersion
	return WriteJSONAtomic(filepath.Join(dir, SummaryFile), s)
}
