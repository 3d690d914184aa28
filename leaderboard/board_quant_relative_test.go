package leaderboard

import (
	"math"
	"strings"
	"testing"
)

// TestRelateQuants: runs of one model in several formats on one runtime
// relate to the widest of them, with the average as a percentage of its;
// other models, runtimes and unknown formats are left alone.
func TestRelateQuants(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rows := []BoardRow{
		{Label: "m-Q4_0.gguf", Name: "m-Q4_0.gguf", Runtime: "llamacpp", Quant: Quant{Name: "Q4_0"}, Mean: f(45)},
		{Label: "m-F16.gguf", Name: "m-F16.gguf", Runtime: "llamacpp", Quant: Quant{Name: "F16"}, Mean: f(50)},
		{Label: "m-Q8_0.gguf", Name: "m-Q8_0.gguf", Runtime: "llamacpp", Quant: Quant{Name: "Q8_0"}},
		{Label: "m-int4", Name: "m-int4", Runtime: "mnn", Quant: Quant{Name: "int4"}, Mean: f(40)},
		{Label: "other-Q4_0.gguf", Name: "other-Q4_0.gguf", Runtime: "llamacpp", Quant: Quant{Name: "Q4_0"}, Mean: f(30)},
		{Label: "m.gguf", Name: "m.gguf", Runtime: "llamacpp", Mean: f(50)},
		{Label: "published", Name: "m-F32", Reference: true, Quant: Quant{Name: "F32"}, Mean: f(60)},
	}
	relateQuants(rows)
	q4 := rows[0].QuantOf
	if q4 == nil || q4.Reference != "m-F16.gguf" || q4.Quant != "F16" || q4.Pct == nil || math.Abs(*q4.Pct-90) > 1e-9 {
		t.Errorf("Q4_0: %+v", q4)
	}
	if got := q4.String(); got != "90.0% of F16" {
		t.Errorf("Q4_0 shown as %q", got)
	}
	if q8 := rows[2].QuantOf; q8 == nil || q8.Reference != "m-F16.gguf" || q8.Pct != nil {
		t.Errorf("Q8_0 without an average: %+v", q8)
	}
	for _, i := range []int{1, 3, 4, 5, 6} {
		if rows[i].QuantOf != nil {
			t.Errorf("%s related to %+v", rows[i].Label, rows[i].QuantOf)
		}
	}
}

func TestQuantBits(t *testing.T) {
	for name, want := range map[string]int{"F32": 32, "BF16": 16, "F16": 16, "Q8_0": 8, "Q4_K_M": 4, "IQ4_XS": 4, "TQ2_0": 2, "int4": 4, "int8": 8, "w4a16": 4, "": 0, "MXFP4": 0} {
		if got := quantBits(name); got != want {
			t.Errorf("quantBits(%q) = %d, want %d", name, got, want)
		}
	}
}

// TestBoardHTMLRelativeScore: the page shows a quantised run's average
// relative to its reference run.
func TestBoardHTMLRelativeScore(t *testing.T) {
	html, err := realisticBoard(t).HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), ">97.4% of Q8_0</div>") {
		t.Error("the page lacks the Q4_K_M run's average relative to Q8_0")
	}
}
