package math

import "github.com/pocketeval/pocketeval/evals"

var (
	_ evals.Chancer = GSM8K{}
	_ evals.Chancer = MATH500{}
	_ evals.Chancer = MGSM{}
)

// chance is 0 for the exact-answer metrics: a random answer does not hit
// a free-form number or expression.
func chance(metric string) (float64, bool) {
	return 0, metric == MetricFlexible || metric == MetricStrict
}

// Chance is what random answers score: 0 (exact match of a number).
func (GSM8K) Chance(_ evals.Sample, metric string) (float64, bool) { return chance(metric) }

// Chance is what random answers score: 0 (exact match of an expression).
func (MATH500) Chance(_ evals.Sample, metric string) (float64, bool) { return chance(metric) }

// Chance is what random answers score: 0 (exact match of a number).
func (MGSM) Chance(_ evals.Sample, metric string) (float64, bool) { return chance(metric) }
