package mc

import "github.com/pocketeval/pocketeval/evals"

var _ evals.Chancer = (*Task)(nil)

// Chance is 1/k for a k-option question on every accuracy metric: a
// random letter (gen mode) or a random option (loglik mode) is right that
// often. The extraction-failure rate has no baseline.
func (t *Task) Chance(s evals.Sample, metric string) (float64, bool) {
	switch metric {
	case MetricStrict, MetricFlexible, MetricAcc, MetricAccNorm:
		if len(s.Choices) > 0 {
			return 1 / float64(len(s.Choices)), true
		}
	}
	return 0, false
}
