package runner

import (
	"fmt"
	"math"
	"slices"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/stats"
)

// Summarize computes a task's summary from its records, over the selected
// samples (dataset indexes) and repeats. It returns the number of selected
// work items that have no record at all or whose record is an error.
// Records for samples outside the selection are ignored. The same function
// serves run, resume and merge, so a summary never depends on how its
// records were produced.
func Summarize(t evals.Task, data *evals.Dataset, selected []int, repeats int, recs []results.Record) (*results.TaskSummary, int) {
	byKey := make(map[results.Key]*results.Record, len(recs))
	for i := range recs {
		byKey[recs[i].Key()] = &recs[i]
	}
	return summarize(t, data, selected, repeats, func(_ int, s evals.Sample, rep int) *results.Record {
		return byKey[results.Key{ID: s.ID, Repeat: rep}]
	})
}

// summarize is Summarize over the records record finds: the record of
// the work item at position pos (sample s, repeat rep), or nil when it
// has none. A record is read before the next is asked for, so record may
// reuse one.
func summarize(t evals.Task, data *evals.Dataset, selected []int, repeats int, record func(pos int, s evals.Sample, rep int) *results.Record) (*results.TaskSummary, int) {
	info := t.Info()
	ts := &results.TaskSummary{
		Version: info.Version, PrimaryMetric: info.PrimaryMetric,
		Metrics: map[string]stats.Summary{},
	}
	n := len(selected) * repeats
	tl := tally{n: n, scored: make([]evals.SampleResult, 0, n), timing: &results.Timing{}}
	missing := 0
	pos := 0
	for _, idx := range selected {
		s := data.Samples[idx]
		for rep := 0; rep < repeats; rep++ {
			ts.Samples++
			r := record(pos, s, rep)
			pos++
			switch {
			case r == nil:
				missing++
			case r.Error != "":
				if ts.Errors == 0 {
					ts.FirstError = fmt.Sprintf("sample %s: %s", r.ID, r.Error)
				}
				ts.Errors++
				if r.Retryable {
					ts.RetryableErrors++
				}
			default:
				ts.Scored++
				tl.add(s, rep, r)
			}
		}
	}
	for _, m := range tl.values {
		ts.Metrics[m.name] = stats.Summarize(m.xs)
	}
	if a, ok := t.(evals.Aggregator); ok && len(tl.scored) > 0 {
		applyAggregates(ts, a.Aggregate(tl.scored), len(tl.scored), info)
	}
	if pm, ok := ts.Metrics[info.PrimaryMetric]; ok {
		ts.Primary = pm.Mean
	} else if ts.Scored > 0 {
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("primary metric %q was not produced by the scorer", info.PrimaryMetric))
	}
	tl.rates(ts)
	ts.Chance = chanceOf(t, info.PrimaryMetric, tl.scored)
	switch {
	case ts.Errors == 0:
	case ts.RetryableErrors > 0:
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("%d samples failed and are excluded from the metrics; %d of them failed in transit (timeouts, connections), and running the same command again retries them", ts.Errors, ts.RetryableErrors))
	default:
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("%d samples failed and are excluded from the metrics; their failures do not depend on timing, so running the command again fails them the same way", ts.Errors))
	}
	return ts, missing + ts.Errors
}

// tally accumulates the scored records of a task.
type tally struct {
	n      int            // work items: a bound on the records
	values []metricValues // per metric, its per-record values
	scored []evals.SampleResult

	extractable, extractFail int
	generated, truncated     int
	// thinking counts responses with a reasoning block, thinkingCut those
	// cut off inside it by the token limit.
	thinking, thinkingCut int

	ttft, prefill, decode, latency []float64
	timing                         *results.Timing
}

// metricValues are one metric's values, record by record.
type metricValues struct {
	name string
	xs   []float64
}

func (tl *tally) add(s evals.Sample, rep int, r *results.Record) {
	// A task has a few metrics, the same in most records: looked for in
	// a list (a key is usually the very string of the list's entry)
	// rather than a map, in any order (each metric's list is in record
	// order either way).
	for k, v := range r.Scores {
		m := tl.metric(k)
		m.xs = append(m.xs, v)
	}
	if r.Extracted != "" || r.ExtractionFailed {
		tl.extractable++
		if r.ExtractionFailed {
			tl.extractFail++
		}
	}
	if r.FinishReason != "" {
		tl.generated++
		if r.FinishReason == runtime.FinishLength {
			tl.truncated++
		}
		if r.Thinking != "" {
			tl.thinking++
		}
		if r.Thinking == evals.ThinkingTruncated {
			tl.thinkingCut++
		}
	}
	if tm := r.Timings; tm != nil {
		tl.addTiming(tm)
		tl.timing.SamplesWithTiming++
	}
	tl.timing.PromptTokens += r.PromptTokens
	tl.timing.CompletionTokens += r.CompletionTokens
	tl.scored = append(tl.scored, evals.SampleResult{
		Sample: s, Repeat: rep,
		Score: evals.Score{Values: r.Scores, Extracted: r.Extracted, ExtractionFailed: r.ExtractionFailed, Details: r.Details},
	})
}

// metric returns the values of metric k, made (with room for every
// record) on its first value.
func (tl *tally) metric(k string) *metricValues {
	for i := range tl.values {
		if tl.values[i].name == k {
			return &tl.values[i]
		}
	}
	tl.values = append(tl.values, metricValues{name: k, xs: make([]float64, 0, tl.n)})
	return &tl.values[len(tl.values)-1]
}

func (tl *tally) addTiming(tm *runtime.Timings) {
	if tm.TimeToFirstToken > 0 {
		tl.ttft = append(tl.ttft, float64(tm.TimeToFirstToken.Microseconds())/1000)
	}
	if tm.PrefillTokPerSec > 0 {
		tl.prefill = append(tl.prefill, tm.PrefillTokPerSec)
	}
	if tm.DecodeTokPerSec > 0 {
		tl.decode = append(tl.decode, tm.DecodeTokPerSec)
	}
	if tm.Total > 0 {
		tl.latency = append(tl.latency, float64(tm.Total.Microseconds())/1000)
	}
}

// rates fills the extraction-failure and truncation rates and the timing
// medians, where they apply.
func (tl *tally) rates(ts *results.TaskSummary) {
	if tl.extractable > 0 {
		r := float64(tl.extractFail) / float64(tl.extractable)
		ts.ExtractionFailureRate = &r
	}
	if tl.generated > 0 {
		r := float64(tl.truncated) / float64(tl.generated)
		ts.TruncationRate = &r
	}
	if tl.thinking > 0 {
		r := float64(tl.thinkingCut) / float64(tl.generated)
		ts.ThinkingTruncatedRate = &r
		if tl.thinkingCut > 0 {
			// One of the two library strings that name a flag (issue 50):
			// it is stored in summary.json, so its wording is part of a
			// run's results bytes, which stay as they were.
			ts.Warnings = append(ts.Warnings, fmt.Sprintf("%d of %d responses were cut off by the token limit while still reasoning (no answer to score); a larger --max-tokens lets them finish", tl.thinkingCut, tl.generated))
		}
	}
	if tl.timing.SamplesWithTiming > 0 {
		tl.timing.TTFTMsMedian = round3(stats.Median(tl.ttft))
		tl.timing.PrefillTPSMedian = round3(stats.Median(tl.prefill))
		tl.timing.DecodeTPSMedian = round3(stats.Median(tl.decode))
		tl.timing.LatencyMsMedian = round3(stats.Median(tl.latency))
		ts.Timing = tl.timing
	}
}

// applyAggregates merges a task's own aggregates into its summary: each
// task-level metric keeps the aggregator's exact value, with an interval
// over its units, from its standard error, or none; the task's headline
// (info.Headline) is named when the aggregator computed it.
func applyAggregates(ts *results.TaskSummary, agg evals.Aggregates, n int, info evals.TaskInfo) {
	primary := info.PrimaryMetric
	for k, v := range agg.Metrics {
		n := n
		if agg.N[k] > 0 {
			n = agg.N[k]
		}
		s := ts.Metrics[k]
		switch units := agg.Units[k]; {
		case len(units) > 0:
			s = stats.Summarize(units)
			s.Mean = v // exactly the aggregator's number
		case agg.Intervals[k] != [2]float64{}:
			iv := agg.Intervals[k]
			s = stats.Summary{Mean: v, Lo: math.Min(v, iv[0]), Hi: math.Max(v, iv[1]), N: n}
		case agg.Stderr[k] > 0:
			se := agg.Stderr[k]
			s = stats.Summary{Mean: v, Stderr: se, Lo: math.Max(0, v-float64(stats.Z95*se)), Hi: math.Min(1, v+float64(stats.Z95*se)), N: n}
		case s.N == 0 || s.Mean != v:
			// A task-level number without per-unit values: no interval.
			s = stats.Summary{Mean: v, Lo: v, Hi: v, N: n}
		}
		ts.Metrics[k] = s
	}
	ts.Breakdown = agg.Breakdown
	ts.Decision = agg.Decision
	ts.Notes = agg.Notes
	if _, ok := ts.Metrics[info.Headline]; ok && info.Headline != primary {
		ts.HeadlineMetric = info.Headline
	}
}

// chanceOf tests the primary metric's per-sample values against random
// answers when the task knows its baseline for every scored sample, the
// baseline is above 0 and the values are 0 or 1.
func chanceOf(t evals.Task, metric string, scored []evals.SampleResult) *results.Chance {
	ch, ok := t.(evals.Chancer)
	if !ok {
		return nil
	}
	var p []float64
	correct := 0
	for _, r := range scored {
		v, has := r.Score.Values[metric]
		if !has {
			continue
		}
		if v != 0 && v != 1 {
			return nil
		}
		pi, ok := ch.Chance(r.Sample, metric)
		if !ok {
			return nil
		}
		p = append(p, pi)
		correct += int(v)
	}
	if len(p) == 0 || !slices.ContainsFunc(p, func(pi float64) bool { return pi > 0 }) {
		// A baseline of 0 (free-form answers: a random guess does not
		// hit a number) is no chance level worth a test.
		return nil
	}
	return &results.Chance{Metric: metric, Chance: stats.AboveChance(p, correct)}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
