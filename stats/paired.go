package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// McNemarExact is the exact (binomial) McNemar test for paired 0/1
// outcomes: b = pairs where only A succeeded, c = pairs where only B did.
// It returns the two-sided p-value, min(1, 2·P[X ≤ min(b,c)]) with
// X ~ Binomial(b+c, 1/2). With no discordant pairs p = 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum the binomial pmf in log space for stability.
	var cdf float64
	for i := 0; i <= k; i++ {
		cdf += math.Exp(logChoose(n, i) - float64(float64(n)*math.Ln2))
	}
	return math.Min(1, 2*cdf)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// PairedResult is the outcome of a paired comparison of B against A.
type PairedResult struct {
	N     int     `json:"n"`
	MeanA float64 `json:"mean_a"`
	MeanB float64 `json:"mean_b"`
	Diff  float64 `json:"diff"` // MeanB - MeanA
	Lo    float64 `json:"ci_lo"`
	Hi    float64 `json:"ci_hi"`
	P     float64 `json:"p"`
	Test  string  `json:"test"` // "mcnemar-exact" or "paired-bootstrap"
	// Discordant pairs, for McNemar.
	OnlyA int `json:"only_a,omitempty"`
	OnlyB int `json:"only_b,omitempty"`
}

// Paired compares aligned per-sample values a[i], b[i]. For 0/1 values it
// uses the exact McNemar test; otherwise a paired bootstrap of the mean
// difference (two-sided p from the bootstrap distribution). The interval is
// always a 95% paired-bootstrap percentile interval of the difference.
// Deterministic for a given seed.
func Paired(a, b []float64, resamples int, seed uint64) PairedResult {
	n := len(a)
	r := PairedResult{N: n}
	if n == 0 || len(b) != n {
		r.P = 1
		return r
	}
	binary := true
	d := make([]float64, n)
	var sa, sb float64
	for i := range a {
		sa += a[i]
		sb += b[i]
		d[i] = b[i] - a[i]
		if (a[i] != 0 && a[i] != 1) || (b[i] != 0 && b[i] != 1) {
			binary = false
		}
		if a[i] == 1 && b[i] == 0 {
			r.OnlyA++
		}
		if a[i] == 0 && b[i] == 1 {
			r.OnlyB++
		}
	}
	r.MeanA, r.MeanB = sa/float64(n), sb/float64(n)
	r.Diff = r.MeanB - r.MeanA
	boots := BootstrapMeans(d, resamples, seed)
	r.Lo, r.Hi = Percentile(boots, 0.025), Percentile(boots, 0.975)
	if binary {
		r.Test = "mcnemar-exact"
		r.P = McNemarExact(r.OnlyA, r.OnlyB)
		return r
	}
	r.Test = "paired-bootstrap"
	r.OnlyA, r.OnlyB = 0, 0
	// Two-sided bootstrap p: how often the resampled difference falls on
	// the other side of zero, doubled (shift method would need centering;
	// the percentile form is standard in NLP evaluation).
	var below, above int
	for _, x := range boots {
		if x <= 0 {
			below++
		}
		if x >= 0 {
			above++
		}
	}
	p := 2 * math.Min(float64(below), float64(above)) / float64(len(boots))
	if r.Diff == 0 {
		p = 1
	}
	r.P = math.Min(1, p)
	return r
}

// BootstrapMeans returns resamples bootstrap means of xs (sorted).
func BootstrapMeans(xs []float64, resamples int, seed uint64) []float64 {
	if resamples <= 0 {
		resamples = 10000
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	n := len(xs)
	out := make([]float64, resamples)
	for b := range out {
		var s float64
		for i := 0; i < n; i++ {
			s += xs[rng.IntN(n)]
		}
		out[b] = s / float64(n)
	}
	sort.Float64s(out)
	return out
}

// Percentile returns the q-quantile (0..1) of sorted xs by linear
// interpolation.
func Percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := float64(q * float64(len(sorted)-1))
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + float64((pos-float64(lo))*(sorted[hi]-sorted[lo]))
}
