// Package stats provides the statistics pocketeval reports: means with
// standard errors and 95% intervals, computed the same way everywhere.
//
// It is deliberately small and opinionated: a metric over n samples is
// summarised by its mean, the standard error of the mean (sample standard
// deviation / sqrt(n), as lm-evaluation-harness reports it), and a 95%
// interval. For metrics bounded in [0,1] whose values are all 0 or 1 the
// interval is Wilson's score interval, which behaves at 0%, 100% and small n;
// otherwise it is the normal interval mean ± 1.96·stderr.
package stats

import (
	"math"
	"sort"
)

// Summary describes one metric over a set of samples.
type Summary struct {
	Mean   float64 `json:"value"`
	Stderr float64 `json:"stderr"`
	Lo     float64 `json:"ci_lo"`
	Hi     float64 `json:"ci_hi"`
	N      int     `json:"n"`
}

// Z95 is the two-sided 95% normal quantile.
const Z95 = 1.959963984540054

// Summarize computes the Summary of xs. An empty slice gives a zero Summary
// with N=0.
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	binary, ones := true, 0
	for _, x := range xs {
		switch x {
		case 1:
			ones++
		case 0:
		default:
			binary = false
		}
	}
	mean := Mean(xs)
	s := Summary{Mean: mean, Stderr: SD(xs) / math.Sqrt(float64(n)), N: n}
	if binary {
		s.Lo, s.Hi = Wilson(float64(ones), n)
	} else {
		s.Lo, s.Hi = mean-float64(Z95*s.Stderr), mean+float64(Z95*s.Stderr)
	}
	return s
}

// Mean returns the arithmetic mean of xs (0 for an empty slice).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// SD returns the sample standard deviation of xs (divisor n-1); 0 for fewer
// than two values.
func SD(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mean := Mean(xs)
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += float64(d * d)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// Wilson returns the 95% Wilson score interval for k successes in n trials.
func Wilson(k float64, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 0
	}
	nf := float64(n)
	p := k / nf
	z2 := Z95 * Z95
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := Z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

// Median returns the median of xs (0 for an empty slice). xs is not
// modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	m := len(c) / 2
	if len(c)%2 == 1 {
		return c[m]
	}
	return (c[m-1] + c[m]) / 2
}

// MacroStderr is the standard error of an unweighted mean of group
// proportions (a macro average over subjects or sub-tasks): the groups are
// independent samples, so Var = Σ p_g(1-p_g)/n_g / G². means[i] is group
// i's proportion over ns[i] samples.
func MacroStderr(means []float64, ns []int) float64 {
	if len(means) == 0 || len(means) != len(ns) {
		return 0
	}
	var v float64
	for i, p := range means {
		if ns[i] > 0 {
			v += p * (1 - p) / float64(ns[i])
		}
	}
	return math.Sqrt(v) / float64(len(means))
}
