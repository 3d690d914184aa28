package stats

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	check := func(xs []float64, mean, se float64) {
		t.Helper()
		s := Summarize(xs)
		if math.Abs(s.Mean-mean) > 1e-12 || math.Abs(s.Stderr-se) > 1e-12 {
			t.Errorf("Summarize(%v) = mean %v se %v, want %v %v", xs, s.Mean, s.Stderr, mean, se)
		}
		if s.N != len(xs) {
			t.Errorf("N = %d, want %d", s.N, len(xs))
		}
		if len(xs) > 0 && !(s.Lo <= s.Mean && s.Mean <= s.Hi) {
			t.Errorf("interval [%v,%v] does not hold mean %v", s.Lo, s.Hi, s.Mean)
		}
	}
	check(nil, 0, 0)
	check([]float64{1}, 1, 0)
	check([]float64{1, 0, 1, 0}, 0.5, math.Sqrt(1.0/3)/2)
	check([]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0/7)/math.Sqrt(8))
}

func TestWilson(t *testing.T) {
	t.Parallel()
	// Reference values: Wilson 95% for 8/10 is [0.4902, 0.9433].
	lo, hi := Wilson(8, 10)
	if math.Abs(lo-0.4902) > 1e-3 || math.Abs(hi-0.9433) > 1e-3 {
		t.Errorf("Wilson(8,10) = [%v,%v]", lo, hi)
	}
	lo, hi = Wilson(0, 5)
	if lo != 0 || hi <= 0 || hi >= 1 {
		t.Errorf("Wilson(0,5) = [%v,%v]", lo, hi)
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := Median(c.xs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestMacroStderr(t *testing.T) {
	t.Parallel()
	// One group: the binomial standard error.
	if got, want := MacroStderr([]float64{0.5}, []int{100}), 0.05; math.Abs(got-want) > 1e-12 {
		t.Errorf("one group: %v, want %v", got, want)
	}
	// Two equal groups halve the variance of one.
	if got, want := MacroStderr([]float64{0.5, 0.5}, []int{100, 100}), 0.05/math.Sqrt(2); math.Abs(got-want) > 1e-12 {
		t.Errorf("two groups: %v, want %v", got, want)
	}
	if MacroStderr(nil, nil) != 0 || MacroStderr([]float64{1, 0}, []int{5, 5}) != 0 {
		t.Error("degenerate cases")
	}
}

func TestMeanSD(t *testing.T) {
	t.Parallel()
	check := func(xs []float64, mean, sd float64) {
		t.Helper()
		if got := Mean(xs); math.Abs(got-mean) > 1e-12 {
			t.Errorf("Mean(%v) = %v, want %v", xs, got, mean)
		}
		if got := SD(xs); math.Abs(got-sd) > 1e-12 {
			t.Errorf("SD(%v) = %v, want %v", xs, got, sd)
		}
	}
	check(nil, 0, 0)
	check([]float64{3}, 3, 0)
	check([]float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, math.Sqrt(32.0/7))
}
