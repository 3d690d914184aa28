package stats

import (
	"math"
	"testing"
)

func TestMcNemarExact(t *testing.T) {
	t.Parallel()
	check := func(b, c int, want float64) {
		t.Helper()
		if got := McNemarExact(b, c); math.Abs(got-want) > 1e-6 {
			t.Errorf("McNemarExact(%d,%d) = %v, want %v", b, c, got, want)
		}
	}
	check(0, 0, 1)
	check(5, 5, 1)
	// b=1, c=9: 2*P[X<=1], X~Bin(10,.5) = 2*11/1024.
	check(1, 9, 22.0/1024)
	check(9, 1, 22.0/1024)
	// b=0, c=6: 2/64.
	check(0, 6, 2.0/64)
	// Symmetric large case stays within [0,1].
	if p := McNemarExact(400, 420); p <= 0.3 || p > 1 {
		t.Errorf("McNemarExact(400,420) = %v", p)
	}
}

func TestPairedBinaryAndContinuous(t *testing.T) {
	t.Parallel()
	a := make([]float64, 200)
	b := make([]float64, 200)
	for i := range a {
		a[i] = float64(i % 2)
		b[i] = a[i]
	}
	// Make B better on 30 items.
	for i := 0; i < 60; i += 2 {
		b[i] = 1
	}
	r := Paired(a, b, 2000, 1)
	if r.Test != "mcnemar-exact" || r.OnlyB != 30 || r.OnlyA != 0 || r.P > 1e-6 {
		t.Errorf("binary: %+v", r)
	}
	if !(r.Lo > 0 && r.Hi > r.Lo && math.Abs(r.Diff-0.15) < 1e-12) {
		t.Errorf("binary interval: %+v", r)
	}
	// Identical continuous values: no difference.
	c := []float64{0.2, 0.5, 0.7, 0.9}
	r = Paired(c, c, 500, 1)
	if r.Test != "paired-bootstrap" || r.P != 1 || r.Diff != 0 {
		t.Errorf("identical: %+v", r)
	}
	// Deterministic for a seed.
	x := []float64{0.1, 0.4, 0.35, 0.8, 0.6, 0.2}
	y := []float64{0.2, 0.5, 0.3, 0.9, 0.65, 0.25}
	if Paired(x, y, 1000, 7) != Paired(x, y, 1000, 7) {
		t.Error("Paired is not deterministic")
	}
}
