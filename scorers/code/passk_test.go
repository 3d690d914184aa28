package code

import (
	"math"
	"math/big"
	"testing"
)

// exactPassAtK computes 1 - C(n-c,k)/C(n,k) with exact big rationals.
func exactPassAtK(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	num := new(big.Int).Binomial(int64(n-c), int64(k))
	den := new(big.Int).Binomial(int64(n), int64(k))
	r := new(big.Rat).SetFrac(num, den)
	r.Sub(big.NewRat(1, 1), r)
	f, _ := r.Float64()
	return f
}

func TestPassAtKKnownValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{1, 1, 1, 1},
		{1, 0, 1, 0},
		{10, 5, 1, 0.5},
		{10, 0, 10, 0},
		{10, 1, 10, 1},
		{5, 2, 2, 0.7},                    // 1 - C(3,2)/C(5,2) = 1 - 3/10
		{200, 1, 1, 0.005},                // c/n for k=1
		{200, 1, 100, 0.5},                // 1 - C(199,100)/C(200,100) = 1 - 100/200
		{20, 3, 10, 1 - 19448.0/184756.0}, // 1 - C(17,10)/C(20,10)
		{6, 6, 1, 1},
	}
	for _, tt := range tests {
		got := PassAtK(tt.n, tt.c, tt.k)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PassAtK(%d, %d, %d) = %.15f, want %.15f", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
}

// TestPassAtKMatchesExact checks the product form against exact binomials
// over a grid that includes the large-n cases where naive binomials
// overflow float64 (C(200,100) ≈ 9e58 is fine, C(1000,500) is not).
func TestPassAtKMatchesExact(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3, 10, 20, 100, 200, 1000} {
		for c := 0; c <= n; c += max(1, n/17) {
			for _, k := range []int{1, 2, 5, 10, 100, 500} {
				if k > n {
					continue
				}
				got, want := PassAtK(n, c, k), exactPassAtK(n, c, k)
				if math.Abs(got-want) > 1e-9 || math.IsNaN(got) {
					t.Errorf("PassAtK(%d, %d, %d) = %.15g, exact %.15g", n, c, k, got, want)
				}
			}
		}
	}
}

func TestPassAtKPanicsOnInvalid(t *testing.T) {
	t.Parallel()
	for _, a := range [][3]int{{0, 0, 1}, {5, 6, 1}, {5, -1, 1}, {5, 2, 0}, {5, 2, 6}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("PassAtK(%d, %d, %d) did not panic", a[0], a[1], a[2])
				}
			}()
			PassAtK(a[0], a[1], a[2])
		}()
	}
}

func TestEstimatePassAtK(t *testing.T) {
	t.Parallel()
	counts := []Count{
		{ID: "a", N: 10, Passed: 5},
		{ID: "b", N: 10, Passed: 0},
		{ID: "c", N: 12, Passed: 12},
		{ID: "skipped", N: 0},
	}
	rep := EstimatePassAtK(counts, []int{100, 10, 1})
	want1 := (0.5 + 0 + 1) / 3
	want10 := (1 + 0 + 1) / 3.0
	if got := rep.Values["pass@1"]; math.Abs(got-want1) > 1e-12 {
		t.Errorf("pass@1 = %v, want %v", got, want1)
	}
	if got := rep.Values["pass@10"]; math.Abs(got-want10) > 1e-12 {
		t.Errorf("pass@10 = %v, want %v", got, want10)
	}
	if _, ok := rep.Values["pass@100"]; ok || len(rep.Skipped) != 1 || rep.Skipped[0] != 100 {
		t.Errorf("pass@100 should be skipped (n < 100): values %v skipped %v", rep.Values, rep.Skipped)
	}
	if rep.MinN != 10 || rep.MaxN != 12 {
		t.Errorf("MinN, MaxN = %d, %d, want 10, 12", rep.MinN, rep.MaxN)
	}
	if rep := EstimatePassAtK(nil, []int{1}); len(rep.Values) != 0 {
		t.Errorf("empty counts gave %v", rep.Values)
	}
}

func BenchmarkPassAtK(b *testing.B) {
	for b.Loop() {
		PassAtK(200, 37, 100)
	}
}
