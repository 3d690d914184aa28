package math

import (
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/mathx"
)

// Metric names every math task reports.
const (
	MetricFlexible = "exact_match_flexible" // primary
	MetricStrict   = "exact_match_strict"
	MetricFail     = "extraction_failed" // flexible extraction found nothing (the name multiple choice uses)
	MetricTrunc    = "truncated"         // finish reason "length"
)

var metricNames = []string{MetricFlexible, MetricStrict, MetricFail, MetricTrunc}

// responseText is the text the math scorers read: the raw response when
// the runtime kept it (so that reasoning can be searched as a last
// resort), else the post-processed text. Reasoning sections are removed by
// the extractors either way.
func responseText(out evals.Output) string {
	if out.Raw != "" {
		return out.Raw
	}
	return out.Text
}

// scoreNumeric scores a numeric-answer response (GSM8K, MGSM).
func scoreNumeric(ex *mathx.NumericExtractor, s evals.Sample, out evals.Output) evals.Score {
	text := responseText(out)
	target, ok := mathx.ParseNumber(s.Target)
	strict := ex.Strict(text)
	flex := ex.Flexible(text)
	return extracted{
		strict:    strict.Answer,
		strictOK:  strict.OK,
		strictHit: ok && strict.OK && strict.Number.Equal(target),
		flex:      flex.Answer,
		flexOK:    flex.OK,
		flexHit:   ok && flex.OK && flex.Number.Equal(target),
		method:    flex.Method,
		thinking:  flex.FromThinking,
	}.score(out)
}

// scoreLatex scores a MATH-style response by answer equivalence.
func scoreLatex(s evals.Sample, out evals.Output) evals.Score {
	text := responseText(out)
	strict := mathx.MathStrict(text)
	flex := mathx.MathFlexible(text)
	return extracted{
		strict:    strict.Text,
		strictOK:  strict.OK,
		strictHit: strict.OK && mathx.Equivalent(s.Target, strict.Text),
		flex:      flex.Text,
		flexOK:    flex.OK,
		flexHit:   flex.OK && mathx.Equivalent(s.Target, flex.Text),
		method:    flex.Method,
		thinking:  flex.FromThinking,
	}.score(out)
}

// extracted is what the strict and the flexible extraction found in one
// response, and whether each matches the target: both scorers report it
// the same way.
type extracted struct {
	strict              string
	strictOK, strictHit bool
	flex                string
	flexOK, flexHit     bool
	method              string
	thinking            bool
}

func (e extracted) score(out evals.Output) evals.Score {
	sc := evals.Score{
		Values: map[string]float64{
			MetricStrict:   evals.Indicator(e.strictHit),
			MetricFlexible: evals.Indicator(e.flexHit),
			MetricFail:     evals.Indicator(!e.flexOK),
			MetricTrunc:    evals.Indicator(out.FinishReason == runtime.FinishLength),
		},
		Extracted:        e.flex,
		ExtractionFailed: !e.flexOK,
		Details: map[string]any{
			"strict_answer":   e.strict,
			"strict_found":    e.strictOK,
			"flexible_method": e.method,
		},
	}
	if e.thinking {
		sc.Details["from_thinking"] = true
	}
	return sc
}

// withGen fills in the task's token limit when the run set none and adds
// stop strings for completion-style prompts.
func withGen(gen runtime.GenConfig, maxTokens int, stops ...string) runtime.GenConfig {
	if gen.MaxTokens == 0 {
		gen.MaxTokens = maxTokens
	}
	if len(stops) > 0 {
		gen.Stop = append(append([]string(nil), gen.Stop...), stops...)
	}
	return gen
}
