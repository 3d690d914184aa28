package taskfile

import (
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
)

var (
	_ evals.Chancer = (*Task)(nil)
	_ evals.Chancer = (*ChoiceTask)(nil)
)

// Chance is what a uniformly random answer scores on a sample: for
// multiple_choice accuracies the share of the choices that are gold
// (1/k with one gold choice); for label_accuracy one over the number of
// labels; 0 for exact answers (exact_match, normalized_match,
// prefix_match, json_exact), which random text does not hit. Graded
// metrics (F1, chrF, ROUGE, MRR, Brier) have no such baseline.
func (t *Task) Chance(s evals.Sample, metric string) (float64, bool) {
	name, _, _ := strings.Cut(metric, ",")
	if t.cfg.OutputType == MultipleChoice {
		switch name {
		case "acc", "acc_norm", "acc_strict", "calibration_acc":
			gold, _ := s.Meta[metaGold].([]int)
			var valid []int
			for _, g := range gold {
				if g >= 0 && !slices.Contains(valid, g) {
					valid = append(valid, g)
				}
			}
			if len(s.Choices) == 0 {
				return 0, false
			}
			return float64(len(valid)) / float64(len(s.Choices)), true
		}
		return 0, false
	}
	switch name {
	case "exact_match", "normalized_match", "prefix_match", "json_exact":
		return 0, true
	case "label_accuracy":
		if len(s.Choices) > 0 {
			return 1 / float64(len(s.Choices)), true
		}
	}
	return 0, false
}
