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

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// scoreNumeric scores a numeric-answer response (GSM8K, MGSM).
func scoreNumeric(ex *mathx.NumericExtractor, s evals.Sample, out evals.Output) evals.Score {
	text := responseText(out)
	target, ok := mathx.ParseNumber(s.Target)
	strict := ex.Strict(text)
	flex := ex.Flexible(text)
	sc := evals.Score{
		Values: map[string]float64{
			MetricStrict:   b2f(ok && strict.OK && strict.Number.Equal(target)),
			MetricFlexible: b2f(ok && flex.OK && flex.Number.Equal(target)),
			MetricFail:     b2f(!flex.OK),
			MetricTrunc:    b2f(out.FinishReason == runtime.FinishLength),
		},
		Extracted:        flex.Answer,
		ExtractionFailed: !flex.OK,
		Details: map[string]any{
			"strict_answer":   strict.Answer,
			"strict_found":    strict.OK,
			"flexible_method": flex.Method,
		},
	}
	if flex.FromThinking {
		sc.Details["from_thinking"] = true
	}
	return sc
}

// scoreLatex scores a MATH-style response by answer equivalence.
func scoreLatex(s evals.Sample, out evals.Output) evals.Score {
	text := responseText(out)
	strict := mathx.MathStrict(text)
	flex := mathx.MathFlexible(text)
	sc := evals.Score{
		Values: map[string]float64{
			MetricStrict:   b2f(strict.OK && mathx.Equivalent(s.Target, strict.Text)),
			MetricFlexible: b2f(flex.OK && mathx.Equivalent(s.Target, flex.Text)),
			MetricFail:     b2f(!flex.OK),
			MetricTrunc:    b2f(out.FinishReason == runtime.FinishLength),
		},
		Extracted:        flex.Text,
		ExtractionFailed: !flex.OK,
		Details: map[string]any{
			"strict_answer":   strict.Text,
			"strict_found":    strict.OK,
			"flexible_method": flex.Method,
		},
	}
	if flex.FromThinking {
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
