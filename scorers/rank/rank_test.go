package rank

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// brier.json holds lm-evaluation-harness's own softmax and brier_score
// values; see testdata/make_brier.py.
func TestBrierMatchesLMEval(t *testing.T) {
	raw, err := os.ReadFile("testdata/brier.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Samples []struct {
			LLs   []float64 `json:"lls"`
			Gold  int       `json:"gold"`
			Probs []float64 `json:"probs"`
			Brier float64   `json:"brier"`
		} `json:"samples"`
		MeanBrier4 float64 `json:"mean_brier_4"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	var sum float64
	var n int
	for _, s := range g.Samples {
		r, err := Score(s.LLs, s.Gold)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Probs {
			if math.Abs(r.Probs[i]-s.Probs[i]) > 1e-15 {
				t.Errorf("softmax(%v)[%d] = %v, lm-eval %v", s.LLs, i, r.Probs[i], s.Probs[i])
			}
		}
		if math.Abs(r.Brier-s.Brier) > 1e-15 {
			t.Errorf("brier(%v, gold %d) = %v, lm-eval %v", s.LLs, s.Gold, r.Brier, s.Brier)
		}
		if len(s.LLs) == 4 {
			sum += r.Brier
			n++
		}
	}
	if mean := sum / float64(n); math.Abs(mean-g.MeanBrier4) > 1e-15 {
		t.Errorf("mean brier = %v, lm-eval %v", mean, g.MeanBrier4)
	}
}

func TestRankAndTies(t *testing.T) {
	check := func(lls []float64, gold, pred, rank int) {
		t.Helper()
		r, err := Score(lls, gold)
		if err != nil {
			t.Fatal(err)
		}
		if r.Pred != pred || r.Rank != rank || r.Correct != (pred == gold) {
			t.Errorf("Score(%v, %d) = pred %d rank %d, want pred %d rank %d", lls, gold, r.Pred, r.Rank, pred, rank)
		}
	}
	check([]float64{-1, -2, -3}, 0, 0, 1)
	check([]float64{-1, -2, -3}, 2, 0, 3)
	check([]float64{-2, -1, -2}, 2, 1, 3) // tie with an earlier candidate ranks behind it
	check([]float64{-2, -2}, 0, 0, 1)     // argmax takes the first on ties
	check([]float64{-2, -2}, 1, 0, 2)
	if r, _ := Score([]float64{-5, -1}, 0); r.ReciprocalRank() != 0.5 {
		t.Errorf("reciprocal rank = %v", r.ReciprocalRank())
	}
	for _, bad := range []struct {
		lls  []float64
		gold int
	}{{nil, 0}, {[]float64{-1}, 1}, {[]float64{math.NaN(), -1}, 0}} {
		if _, err := Score(bad.lls, bad.gold); err == nil {
			t.Errorf("Score(%v, %d): no error", bad.lls, bad.gold)
		}
	}
}

func TestECE(t *testing.T) {
	check := func(conf []float64, correct []bool, want float64) {
		t.Helper()
		if got := ECE(conf, correct); math.Abs(got-want) > 1e-12 {
			t.Errorf("ECE(%v, %v) = %v, want %v", conf, correct, got, want)
		}
	}
	check(nil, nil, 0)
	// Perfect calibration inside one bin: 0.75 confidence, 3 of 4 right.
	check([]float64{0.75, 0.75, 0.75, 0.75}, []bool{true, true, true, false}, 0)
	// Two bins: (0.9,1] holds 0.95 and 1.0, both right: |1 − 0.975| = 0.025;
	// (0.5,0.6] holds 0.6, wrong: |0 − 0.6| = 0.6. Weighted: 2/3·0.025 + 1/3·0.6.
	check([]float64{0.95, 1.0, 0.6}, []bool{true, true, false}, 2.0/3*0.025+1.0/3*0.6)
	// Bin edges are right-closed: 0.1 is in the first bin with 0.05.
	check([]float64{0.1, 0.05}, []bool{false, false}, 0.075)
	// A confidence of 0 goes to the first bin.
	check([]float64{0}, []bool{true}, 1)
}
