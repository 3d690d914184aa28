package choice

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// LoglikPick is the outcome of scoring one question by the log-likelihood
// of each option.
type LoglikPick struct {
	// Index is the argmax of the summed log-probabilities (lm-eval "acc").
	Index int
	// NormIndex is the argmax of log-probability divided by the length of
	// the option in characters (lm-eval "acc_norm").
	NormIndex int
	// LogProbs are the per-option summed log-probabilities, in option
	// order; NormLogProbs the length-normalised ones.
	LogProbs     []float64
	NormLogProbs []float64
}

// PickLoglik chooses an option from the per-option summed
// log-probabilities (the runtime's log-likelihood results, in option order).
// lengthTexts are the strings whose character counts normalise acc_norm:
// lm-eval uses the option texts (without the leading delimiter). Ties go to
// the first option, as numpy.argmax does. A result count that differs from
// the option count, or a NaN log-probability, is an error: the runtime did
// not answer what was asked.
func PickLoglik(logprobs []float64, lengthTexts []string) (LoglikPick, error) {
	if len(logprobs) != len(lengthTexts) {
		return LoglikPick{}, fmt.Errorf("pick by log-likelihood: %d results for %d options", len(logprobs), len(lengthTexts))
	}
	if len(logprobs) == 0 {
		return LoglikPick{}, fmt.Errorf("pick by log-likelihood: no options")
	}
	p := LoglikPick{
		LogProbs:     make([]float64, len(logprobs)),
		NormLogProbs: make([]float64, len(logprobs)),
	}
	for i, lp := range logprobs {
		if math.IsNaN(lp) {
			return LoglikPick{}, fmt.Errorf("pick by log-likelihood: option %s: log-probability is NaN", Letter(i))
		}
		n := utf8.RuneCountInString(lengthTexts[i])
		if n == 0 {
			n = 1
		}
		p.LogProbs[i] = lp
		p.NormLogProbs[i] = lp / float64(n)
	}
	p.Index = argmax(p.LogProbs)
	p.NormIndex = argmax(p.NormLogProbs)
	return p, nil
}

func argmax(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}
