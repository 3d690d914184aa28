package stats

import (
	"encoding/json"
	"math"
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
