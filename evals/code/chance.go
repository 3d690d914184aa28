package code

import "github.com/pocketeval/pocketeval/evals"

var _ evals.Chancer = (*Task)(nil)

// Chance is 0 for pass@1: random text does not pass a problem's tests.
func (t *Task) Chance(_ evals.Sample, metric string) (float64, bool) {
	return 0, metric == "pass@1"
}
