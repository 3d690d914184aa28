package stats

import (
	"math"
	"testing"
)

func TestQuantileCI(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i) // 100..1, unsorted on purpose
	}
	check := func(name string, got Quantile, value, lo, hi float64, loOpen, hiOpen bool) {
		t.Helper()
		if math.Abs(got.Value-value) > 1e-9 || got.Lo != lo || got.Hi != hi || got.LoOpen != loOpen || got.HiOpen != hiOpen {
			t.Errorf("%s = %+v; want value %g, [%g, %g], open %v %v", name, got, value, lo, hi, loOpen, hiOpen)
		}
	}
	// n = 100, q = 0.5: the textbook ranks are 40 and 61 (P(40 <= B <= 60)
	// = 0.9648 for Binomial(100, 0.5)).
	check("median", QuantileCI(xs, 0.5, 0.95), 50.5, 40, 61, false, false)
	// q = 0.9: ranks 84 and 96 (each tail at most 2.5 %).
	check("p90", QuantileCI(xs, 0.9, 0.95), 90.1, 84, 96, false, false)
	// q = 0.99 with 100 values: no upper bound at 95 %.
	p99 := QuantileCI(xs, 0.99, 0.95)
	if !p99.HiOpen || p99.LoOpen || p99.Lo != 97 {
		t.Errorf("p99 = %+v; want a lower bound of 97 (P(B <= 96) = 0.018) and an open upper bound", p99)
	}
	// Five values bound the median at 93.75 % only: both sides open at 95 %.
	small := QuantileCI([]float64{5, 1, 4, 2, 3}, 0.5, 0.95)
	if !small.LoOpen || !small.HiOpen || small.Value != 3 {
		t.Errorf("median of 5 = %+v; want 3 with both bounds open", small)
	}
	// At level 0.9 the same five values give [1, 5].
	check("median of 5 at 90%", QuantileCI([]float64{5, 1, 4, 2, 3}, 0.5, 0.9), 3, 1, 5, false, false)
	if e := QuantileCI(nil, 0.5, 0); e.N != 0 || !math.IsNaN(e.Value) || e.Level != 0.95 {
		t.Errorf("empty = %+v", e)
	}
}
