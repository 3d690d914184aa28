package stats

import (
	"math"
	"sort"
)

// Quantile is a q-quantile of a sample with a distribution-free
// confidence interval from order statistics.
type Quantile struct {
	Q     float64 `json:"q"`     // 0.5, 0.9, 0.99
	Value float64 `json:"value"` // linear interpolation (Percentile)
	// Lo and Hi are order statistics X_(l) and X_(u) with
	// P(X_(l) <= ξ_q <= X_(u)) >= Level for any continuous distribution;
	// LoOpen or HiOpen means the sample is too small to bound that side
	// at Level (the bound is then -∞ or +∞, and Lo or Hi is the sample's
	// minimum or maximum, as a reminder only).
	Lo     float64 `json:"ci_lo"`
	Hi     float64 `json:"ci_hi"`
	LoOpen bool    `json:"ci_lo_open,omitempty"`
	HiOpen bool    `json:"ci_hi_open,omitempty"`
	Level  float64 `json:"level"`
	N      int     `json:"n"`
}

// QuantileCI estimates the q-quantile of xs (not modified) with an
// order-statistic interval at the given level (0.95 when 0): with B the
// number of observations at or below the true quantile, B ~ Binomial(n,
// q), the interval [X_(l), X_(u)] (1-based) covers it with probability
// P(l <= B < u) (for continuous data); l is the largest rank with
// P(B < l) <= α/2 and u the smallest with P(B >= u) <= α/2, so each tail
// has at most α/2 (Conover, Practical Nonparametric Statistics, §3.2).
// An empty xs gives N 0 and NaN values.
func QuantileCI(xs []float64, q, level float64) Quantile {
	if level == 0 {
		level = 0.95
	}
	n := len(xs)
	out := Quantile{Q: q, Level: level, N: n}
	if n == 0 {
		out.Value, out.Lo, out.Hi = math.NaN(), math.NaN(), math.NaN()
		out.LoOpen, out.HiOpen = true, true
		return out
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	out.Value = Percentile(s, q)
	alpha := float64(1 - level)
	// cdf[k] = P(B <= k).
	cdf := make([]float64, n+1)
	acc := 0.0
	for k := 0; k <= n; k++ {
		acc += binomPMF(n, k, q)
		cdf[k] = acc
	}
	l := 0 // P(B < l) = cdf[l-1] <= α/2
	for k := 1; k <= n; k++ {
		if cdf[k-1] <= alpha/2 {
			l = k
		}
	}
	u := n + 1 // P(B >= u) = 1 - cdf[u-1] <= α/2
	for k := n; k >= 1; k-- {
		if 1-cdf[k-1] <= alpha/2 {
			u = k
		}
	}
	if l < 1 {
		out.Lo, out.LoOpen = s[0], true
	} else {
		out.Lo = s[l-1]
	}
	if u > n {
		out.Hi, out.HiOpen = s[n-1], true
	} else {
		out.Hi = s[u-1]
	}
	return out
}

func binomPMF(n, k int, p float64) float64 {
	switch {
	case p <= 0:
		if k == 0 {
			return 1
		}
		return 0
	case p >= 1:
		if k == n {
			return 1
		}
		return 0
	}
	return math.Exp(logChoose(n, k) + float64(float64(k)*math.Log(p)) + float64(float64(n-k)*math.Log1p(-p)))
}
