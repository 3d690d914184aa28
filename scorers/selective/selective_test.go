package selective

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/scorers/rank"
)

type golden struct {
	Name        string            `json:"name"`
	Conf        []float64         `json:"conf"`
	Correct     []bool            `json:"correct"`
	Scores      [][]float64       `json:"scores"`
	Gold        []int             `json:"gold"`
	AURC        float64           `json:"aurc"`
	EAURC       float64           `json:"eaurc"`
	Curve       []Point           `json:"curve"`
	ECE         float64           `json:"ece"`
	ThresholdAt map[string]*Point `json:"threshold_at"`
	Temperature float64           `json:"temperature"`
	NLL1        float64           `json:"nll_1"`
	NLLT        float64           `json:"nll_t"`
}

func readGoldens(t *testing.T) []golden {
	t.Helper()
	raw, err := os.ReadFile("testdata/goldens.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct{ Cases []golden }
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g.Cases
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestGoldens checks the curve, AURC, E-AURC, thresholds, ECE and the
// fitted temperature against make_goldens.py's reference computation.
func TestGoldens(t *testing.T) {
	for _, c := range readGoldens(t) {
		t.Run(c.Name, func(t *testing.T) {
			aurc, eaurc := AURC(c.Conf, c.Correct)
			if !near(aurc, c.AURC, 1e-12) || !near(eaurc, c.EAURC, 1e-12) {
				t.Errorf("AURC = %v, %v; reference %v, %v", aurc, eaurc, c.AURC, c.EAURC)
			}
			curve := Curve(c.Conf, c.Correct)
			if len(curve) != len(c.Curve) {
				t.Fatalf("curve has %d points, reference %d", len(curve), len(c.Curve))
			}
			for i, p := range curve {
				w := c.Curve[i]
				if p.Threshold != w.Threshold || p.Accepted != w.Accepted || !near(p.Coverage, w.Coverage, 1e-15) || !near(p.Risk, w.Risk, 1e-15) {
					t.Errorf("curve[%d] = %+v, reference %+v", i, p, w)
				}
			}
			for target, w := range c.ThresholdAt {
				var x float64
				if err := json.Unmarshal([]byte(target), &x); err != nil {
					t.Fatal(err)
				}
				p, ok := ThresholdAt(curve, x)
				if ok != (w != nil) || ok && p != *w {
					t.Errorf("ThresholdAt(%v) = %+v %v, reference %+v", x, p, ok, w)
				}
			}
			if e := rank.ECE(c.Conf, c.Correct); !near(e, c.ECE, 1e-12) {
				t.Errorf("ECE = %v, reference %v", e, c.ECE)
			}
			if c.Scores == nil {
				return
			}
			temp, err := FitTemperature(c.Scores, c.Gold)
			if err != nil {
				t.Fatal(err)
			}
			if !near(temp, c.Temperature, 1e-6) {
				t.Errorf("temperature = %v, reference %v", temp, c.Temperature)
			}
			if n := NLL(c.Scores, c.Gold, 1); !near(n, c.NLL1, 1e-12) {
				t.Errorf("NLL(T=1) = %v, reference %v", n, c.NLL1)
			}
			if n := NLL(c.Scores, c.Gold, temp); !near(n, c.NLLT, 1e-9) || n > c.NLLT+1e-12 {
				t.Errorf("NLL(T=%v) = %v, reference minimum %v", temp, n, c.NLLT)
			}
		})
	}
}

func TestApplyAndChoose(t *testing.T) {
	cal := []float64{0.95, 0.9, 0.8, 0.7, 0.6, 0.5}
	calOK := []bool{true, true, true, false, true, false}
	test := []float64{0.99, 0.85, 0.75, 0.4}
	testOK := []bool{true, false, true, true}
	// On the calibration split risk ≤ 0.2 holds down to 0.6 (1 error in 5).
	op := Choose(cal, calOK, test, testOK, 0.2, 200, 1)
	if !op.Found || op.Chosen.Threshold != 0.6 || op.Chosen.Accepted != 5 {
		t.Fatalf("chosen = %+v", op)
	}
	if op.Test != (Point{Threshold: 0.6, Coverage: 0.75, Risk: 1.0 / 3, Accepted: 3}) {
		t.Errorf("test point = %+v", op.Test)
	}
	if op.ThresholdLo > op.ThresholdHi || op.CoverageLo > op.CoverageHi || op.CoverageHi > 1 {
		t.Errorf("intervals out of order: %+v", op)
	}
	if again := Choose(cal, calOK, test, testOK, 0.2, 200, 1); again != op {
		t.Errorf("not deterministic: %+v vs %+v", again, op)
	}
	if op := Choose(cal, []bool{false, false, false, false, false, false}, test, testOK, 0.05, 10, 1); op.Found {
		t.Errorf("all wrong: found %+v", op)
	}
	// One right decision among wrong ones: most resamples miss it, so
	// their threshold is 1 (everything falls back) and the intervals stay
	// finite (summary.json cannot hold an infinity).
	op = Choose(cal, []bool{true, false, false, false, false, false}, test, testOK, 0.05, 400, 1)
	if !op.Found || op.Unmet == 0 || op.ThresholdHi != 1 || op.CoverageLo != 0 || math.IsInf(op.ThresholdHi, 0) {
		t.Errorf("mostly unmet: %+v", op)
	}
	if p := Apply(nil, nil, 0.5); p != (Point{Threshold: 0.5}) {
		t.Errorf("Apply(nil) = %+v", p)
	}
}

func TestFitTemperatureEdges(t *testing.T) {
	// Gold always on top: the fit sharpens to the bound.
	if temp, _ := FitTemperature([][]float64{{2, 0}, {0, 3}}, []int{0, 1}); temp != MinTemperature {
		t.Errorf("separable: T = %v", temp)
	}
	// Gold never on top: flatten to the bound.
	if temp, _ := FitTemperature([][]float64{{2, 0}, {0, 3}}, []int{1, 0}); temp != MaxTemperature {
		t.Errorf("anti-separable: T = %v", temp)
	}
	if _, err := FitTemperature([][]float64{{1, 2}}, []int{2}); err == nil {
		t.Error("gold outside the candidates: no error")
	}
	if _, err := FitTemperature(nil, nil); err == nil {
		t.Error("no items: no error")
	}
}
