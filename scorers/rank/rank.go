// Package rank scores a choice among candidates made by log-likelihood
// (a decision head picking one of several candidate answers, or any
// multiple-choice question scored by option log-likelihood):
//
//   - accuracy@1: the candidate with the highest log-likelihood (the first
//     one on ties, as numpy.argmax) is the gold one;
//   - reciprocal rank: 1/rank of the gold candidate, ties broken the same
//     way (a candidate ahead in order and equal in log-likelihood ranks
//     higher); its mean over samples is the MRR;
//   - Brier score: the candidate probabilities are the softmax of the
//     log-likelihoods, and the score is Σ_c (p_c − y_c)², y the one-hot
//     gold; its mean over samples is lm-evaluation-harness's brier_score
//     (range 0–2, lower is better);
//   - expected calibration error (ECE, Guo et al. 2017): the confidence of
//     a sample is the probability of its top candidate; samples are put in
//     10 equal-width bins of confidence, (0, 0.1], (0.1, 0.2], …, (0.9, 1]
//     (a confidence of exactly 0 goes to the first bin), and ECE is
//     Σ_b (n_b/N)·|accuracy_b − mean confidence_b|.
//
// Probabilities are relative to the candidates: the softmax says how the
// model's likelihood is shared among them, not how likely any of them is
// in free generation.
package rank

import (
	"fmt"
	"math"
)

// Result is one sample's ranking outcome.
type Result struct {
	Pred       int       // argmax candidate (first on ties)
	Rank       int       // 1-based rank of the gold candidate
	Probs      []float64 // softmax of the log-likelihoods
	Confidence float64   // Probs[Pred]
	Correct    bool      // Pred == gold
	Brier      float64   // Σ (p − onehot)²
}

// ReciprocalRank is 1/Rank.
func (r Result) ReciprocalRank() float64 { return 1 / float64(r.Rank) }

// Score ranks candidates by their log-likelihoods lls against the gold
// index.
func Score(lls []float64, gold int) (Result, error) {
	if len(lls) == 0 {
		return Result{}, fmt.Errorf("rank: no candidates")
	}
	if gold < 0 || gold >= len(lls) {
		return Result{}, fmt.Errorf("rank: gold index %d outside %d candidates", gold, len(lls))
	}
	best := 0
	for i, x := range lls {
		if math.IsNaN(x) {
			return Result{}, fmt.Errorf("rank: candidate %d: log-likelihood is NaN", i)
		}
		if x > lls[best] {
			best = i
		}
	}
	rank := 1
	for i, x := range lls {
		if x > lls[gold] || x == lls[gold] && i < gold {
			rank++
		}
	}
	probs := Softmax(lls)
	var brier float64
	for i, p := range probs {
		y := 0.0
		if i == gold {
			y = 1
		}
		brier += float64((p - y) * (p - y))
	}
	return Result{Pred: best, Rank: rank, Probs: probs, Confidence: probs[best], Correct: best == gold, Brier: brier}, nil
}

// Softmax returns exp(x − max x) normalised to sum 1, as numpy code
// (lm-eval's utils.softmax) computes it.
func Softmax(xs []float64) []float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	out := make([]float64, len(xs))
	var sum float64
	for i, x := range xs {
		out[i] = math.Exp(x - m)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// Bins is the number of equal-width confidence bins of ECE.
const Bins = 10

// ECE is the expected calibration error of confidences against
// correctness with Bins equal-width bins (see the package comment). It is
// 0 for no samples.
func ECE(confidence []float64, correct []bool) float64 {
	if len(confidence) == 0 {
		return 0
	}
	var n [Bins]int
	var conf, acc [Bins]float64
	for i, c := range confidence {
		b := 0
		for b < Bins-1 && c > float64(b+1)/Bins {
			b++
		}
		n[b]++
		conf[b] += c
		if correct[i] {
			acc[b]++
		}
	}
	var ece float64
	for b := range Bins {
		if n[b] == 0 {
			continue
		}
		nb := float64(n[b])
		ece += float64(nb / float64(len(confidence)) * math.Abs(acc[b]/nb-conf[b]/nb))
	}
	return ece
}
