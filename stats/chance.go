package stats

import "math"

// Chance compares a score with what random answers would score.
//
// Under the null hypothesis the answer to item i is right with its own
// probability p_i (1/k for a k-choice question, the share of gold choices
// when several are accepted, 0 for an exact-match answer nobody guesses),
// independently, so the number of right answers follows the
// Poisson-binomial distribution of the p_i (the binomial when they are
// equal). P is the exact one-sided p-value P(X ≥ observed) of that
// distribution; a score is above chance when P < Alpha.
type Chance struct {
	// Baseline is the expected score of random answers, mean p_i.
	Baseline float64 `json:"baseline"`
	// Correct is the number of right answers of N items.
	Correct int `json:"correct"`
	N       int `json:"n"`
	// P is P(X ≥ Correct) under random answering.
	P float64 `json:"p"`
	// Above reports P < ChanceAlpha.
	Above bool `json:"above"`
}

// ChanceAlpha is the level of the test against chance.
const ChanceAlpha = 0.05

// AboveChance tests correct right answers out of len(p) items against the
// per-item chance probabilities p.
func AboveChance(p []float64, correct int) Chance {
	c := Chance{Correct: correct, N: len(p)}
	if len(p) == 0 {
		c.P = 1
		return c
	}
	c.Baseline = Mean(p)
	c.P = PoissonBinomialUpper(p, correct)
	c.Above = c.P < ChanceAlpha
	return c
}

// PoissonBinomialUpper is P(X ≥ k) for X the number of successes of
// independent trials with success probabilities p, computed exactly by the
// recurrence P_j(m) = P_{j-1}(m)(1−p_j) + P_{j-1}(m−1)p_j over the trials
// (O(n²) time at most, O(n) memory). Probabilities outside [0, 1] are
// clamped.
//
// Only the band of counts whose probability is not exactly zero is
// updated: outside it the recurrence gives 0·(1−p_j) + 0·p_j = +0 again,
// and adding +0 to the tail changes nothing, so the result is bit for
// bit the full recurrence's (TestPoissonBinomialBand) while the work
// follows the band. For MMLU's 14,042 four-choice items that halves it:
// the probabilities of counts far above the mean underflow to zero, while
// those below it stop at the smallest subnormal (0.75 of it rounds up).
func PoissonBinomialUpper(p []float64, k int) float64 {
	if k <= 0 {
		return 1
	}
	if k > len(p) {
		return 0
	}
	for _, pj := range p {
		if math.IsNaN(pj) {
			// NaN spreads to every count: the full recurrence.
			return poissonBinomialFull(p, k)
		}
	}
	dist := make([]float64, len(p)+1)
	dist[0] = 1
	lo, hi := 0, 0 // dist is +0 outside [lo, hi]
	for j, pj := range p {
		pj = math.Min(1, math.Max(0, pj))
		top := min(hi+1, j+1)
		if b := max(lo, 1); b <= top {
			trial(dist[b-1:top+1], pj)
		}
		if lo == 0 {
			dist[0] *= 1 - pj
		}
		hi = top
		for hi > lo && dist[hi] == 0 {
			hi--
		}
		for lo < hi && dist[lo] == 0 {
			lo++
		}
	}
	var tail float64
	for m := min(len(p), hi); m >= max(k, lo); m-- {
		tail += dist[m]
	}
	return math.Min(1, tail)
}

// trial is one step of the recurrence over d: d[m] = d[m](1−p) + d[m−1]p
// for m from len(d)−1 down to 1, each product rounded before the sum as
// the plain loop does (the same operations on the same values, so the
// same bits), four counts at a time with one bounds check.
func trial(d []float64, p float64) {
	q := 1 - p
	m := len(d) - 1
	for ; m >= 4; m -= 4 {
		x := d[m-4 : m+1 : m+1]
		a0, a1, a2, a3, a4 := x[4], x[3], x[2], x[1], x[0]
		x[4] = float64(a0*q) + float64(a1*p)
		x[3] = float64(a1*q) + float64(a2*p)
		x[2] = float64(a2*q) + float64(a3*p)
		x[1] = float64(a3*q) + float64(a4*p)
	}
	for ; m >= 1; m-- {
		d[m] = float64(d[m]*q) + float64(d[m-1]*p)
	}
}

// poissonBinomialFull is PoissonBinomialUpper's recurrence over every
// count.
func poissonBinomialFull(p []float64, k int) float64 {
	dist := make([]float64, len(p)+1)
	dist[0] = 1
	for j, pj := range p {
		pj = math.Min(1, math.Max(0, pj))
		for m := j + 1; m >= 1; m-- {
			dist[m] = float64(dist[m]*(1-pj)) + float64(dist[m-1]*pj)
		}
		dist[0] *= 1 - pj
	}
	var tail float64
	for m := len(p); m >= k; m-- {
		tail += dist[m]
	}
	return math.Min(1, tail)
}
