package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// chance.json holds exact tails from make_chance.py (rational arithmetic).
func TestPoissonBinomialUpperMatchesExact(t *testing.T) {
	raw, err := os.ReadFile("testdata/chance.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			P    []float64 `json:"p"`
			K    int       `json:"k"`
			Tail float64   `json:"tail"`
			Via  string    `json:"via"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		got := PoissonBinomialUpper(c.P, c.K)
		if math.Abs(got-c.Tail) > 1e-12*math.Max(c.Tail, 1e-300) && math.Abs(got-c.Tail) > 1e-300 {
			t.Errorf("%s n=%d k=%d: P(X ≥ k) = %.17g, exact %.17g", c.Via, len(c.P), c.K, got, c.Tail)
		}
	}
}

func TestAboveChance(t *testing.T) {
	// 4-choice, 100 items: 25 right is chance, 40 right is not.
	p := make([]float64, 100)
	for i := range p {
		p[i] = 0.25
	}
	if c := AboveChance(p, 25); c.Above || c.Baseline != 0.25 || c.P < 0.4 {
		t.Errorf("at chance: %+v", c)
	}
	if c := AboveChance(p, 40); !c.Above || c.P > 0.01 {
		t.Errorf("above chance: %+v", c)
	}
	// Exact match: chance 0, one right answer is above it.
	if c := AboveChance(make([]float64, 5), 1); !c.Above || c.P != 0 {
		t.Errorf("exact match: %+v", c)
	}
	if c := AboveChance(nil, 0); c.Above || c.P != 1 {
		t.Errorf("empty: %+v", c)
	}
}

// TestPoissonBinomialBand: the band-limited recurrence gives the full
// recurrence's tail bit for bit, for every k, on random probabilities
// (equal ones, exact 0s and 1s, tiny ones, out-of-range ones, NaN) and
// sizes large enough for the counts far from the mean to underflow.
func TestPoissonBinomialBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 1))
	pick := func(kind int) float64 {
		switch kind {
		case 0:
			return 0.25
		case 1:
			return []float64{0, 1, 0.5, 1e-300, 1 - 1e-16, -0.5, 2, math.Inf(1)}[rng.IntN(8)]
		default:
			return rng.Float64()
		}
	}
	for trial := range 300 {
		n := rng.IntN(40)
		if trial%20 == 0 {
			n = 1500 + rng.IntN(2000)
		}
		p := make([]float64, n)
		kind := rng.IntN(3)
		for i := range p {
			if rng.IntN(8) == 0 {
				p[i] = pick(rng.IntN(3))
			} else {
				p[i] = pick(kind)
			}
		}
		if trial%50 == 7 && n > 0 {
			p[rng.IntN(n)] = math.NaN()
		}
		ks := []int{-1, 0, 1, 2, n / 4, n / 2, n - 1, n, n + 1}
		if n > 1000 {
			ks = []int{1, n / 4, n / 2} // each k is an O(n²) pass of the reference
		}
		for range 5 {
			ks = append(ks, rng.IntN(n+2))
		}
		for _, k := range ks {
			got, want := PoissonBinomialUpper(p, k), poissonBinomialFull(p, max(k, 1))
			if k <= 0 {
				want = 1
			} else if k > n {
				want = 0
			}
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("n=%d k=%d: band %v (%x), full %v (%x)", n, k, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
}

// BenchmarkPoissonBinomialUpper is MMLU's test against chance: 14,042
// four-choice items.
func BenchmarkPoissonBinomialUpper(b *testing.B) {
	p := make([]float64, 14042)
	for i := range p {
		p[i] = 0.25
	}
	for _, k := range []int{1, 3510, 7000} {
		b.Run(fmt.Sprint("k=", k), func(b *testing.B) {
			for b.Loop() {
				PoissonBinomialUpper(p, k)
			}
		})
	}
}
