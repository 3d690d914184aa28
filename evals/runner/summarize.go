package runner

import (
	"fmt"
	"math"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/stats"
)

// Summarize computes a task's summary from its records, over the selected
// samples (dataset indexes) and repeats. It returns the number of selected
// work items that have no record at all or whose record is an error. Records for samples outside the
// selection are ignored. The same function serves run, resume and merge,
// so a summary never depends on how its records were produced.
func Summarize(t evals.Task, data *evals.Dataset, selected []int, repeats int, recs []results.Record) (*results.TaskSummary, int) {
	info := t.Info()
	byKey := make(map[results.Key]*results.Record, len(recs))
	for i := range recs {
		byKey[recs[i].Key()] = &recs[i]
	}
	ts := &results.TaskSummary{
		Version: info.Version, PrimaryMetric: info.PrimaryMetric,
		Metrics: map[string]stats.Summary{},
	}
	values := map[string][]float64{}
	var scored []evals.SampleResult
	var extractFail, extractable, truncated, generated int
	var ttft, prefill, decode, latency []float64
	timing := &results.Timing{}
	missing := 0
	for _, idx := range selected {
		s := data.Samples[idx]
		for rep := 0; rep < repeats; rep++ {
			ts.Samples++
			r, ok := byKey[results.Key{ID: s.ID, Repeat: rep}]
			if !ok {
				missing++
				continue
			}
			if r.Error != "" {
				if ts.Errors == 0 {
					ts.FirstError = fmt.Sprintf("sample %s: %s", r.ID, r.Error)
				}
				ts.Errors++
				continue
			}
			ts.Scored++
			for _, k := range sortedKeys(r.Scores) {
				values[k] = append(values[k], r.Scores[k])
			}
			if r.Extracted != "" || r.ExtractionFailed {
				extractable++
				if r.ExtractionFailed {
					extractFail++
				}
			}
			if r.FinishReason != "" {
				generated++
				if r.FinishReason == runtime.FinishLength {
					truncated++
				}
			}
			if tm := r.Timings; tm != nil {
				addTiming(tm, &ttft, &prefill, &decode, &latency)
				timing.SamplesWithTiming++
			}
			timing.PromptTokens += r.PromptTokens
			timing.CompletionTokens += r.CompletionTokens
			scored = append(scored, evals.SampleResult{
				Sample: s, Repeat: rep,
				Score: evals.Score{Values: r.Scores, Extracted: r.Extracted, ExtractionFailed: r.ExtractionFailed, Details: r.Details},
			})
		}
	}
	for k, xs := range values {
		ts.Metrics[k] = stats.Summarize(xs)
	}
	if a, ok := t.(evals.Aggregator); ok && len(scored) > 0 {
		agg := a.Aggregate(scored)
		for k, v := range agg.Metrics {
			s := ts.Metrics[k]
			switch units := agg.Units[k]; {
			case len(units) > 0:
				s = stats.Summarize(units)
				s.Mean = v // exactly the aggregator's number
			case agg.Stderr[k] > 0:
				se := agg.Stderr[k]
				s = stats.Summary{Mean: v, Stderr: se, Lo: math.Max(0, v-stats.Z95*se), Hi: math.Min(1, v+stats.Z95*se), N: len(scored)}
			case s.N == 0 || s.Mean != v:
				// A task-level number without per-unit values: no interval.
				s = stats.Summary{Mean: v, Lo: v, Hi: v, N: len(scored)}
			}
			ts.Metrics[k] = s
		}
		ts.Breakdown = agg.Breakdown
		ts.Notes = agg.Notes
		if _, ok := ts.Metrics[agg.Headline]; ok && agg.Headline != info.PrimaryMetric {
			ts.HeadlineMetric = agg.Headline
		}
	}
	if pm, ok := ts.Metrics[info.PrimaryMetric]; ok {
		ts.Primary = pm.Mean
	} else if ts.Scored > 0 {
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("primary metric %q was not produced by the scorer", info.PrimaryMetric))
	}
	if extractable > 0 {
		r := float64(extractFail) / float64(extractable)
		ts.ExtractionFailureRate = &r
	}
	if generated > 0 {
		r := float64(truncated) / float64(generated)
		ts.TruncationRate = &r
	}
	if timing.SamplesWithTiming > 0 {
		timing.TTFTMsMedian = round3(stats.Median(ttft))
		timing.PrefillTPSMedian = round3(stats.Median(prefill))
		timing.DecodeTPSMedian = round3(stats.Median(decode))
		timing.LatencyMsMedian = round3(stats.Median(latency))
		ts.Timing = timing
	}
	if ts.Errors > 0 {
		ts.Warnings = append(ts.Warnings, fmt.Sprintf("%d samples failed and are excluded from the metrics; run the same command again to retry them", ts.Errors))
	}
	return ts, missing + ts.Errors
}

func addTiming(tm *runtime.Timings, ttft, prefill, decode, latency *[]float64) {
	if tm.TimeToFirstToken > 0 {
		*ttft = append(*ttft, float64(tm.TimeToFirstToken.Microseconds())/1000)
	}
	if tm.PrefillTokPerSec > 0 {
		*prefill = append(*prefill, tm.PrefillTokPerSec)
	}
	if tm.DecodeTokPerSec > 0 {
		*decode = append(*decode, tm.DecodeTokPerSec)
	}
	if tm.Total > 0 {
		*latency = append(*latency, float64(tm.Total.Microseconds())/1000)
	}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
