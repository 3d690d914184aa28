package textsim

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// golden.json holds sacrebleu's and rouge-score's own numbers; see
// testdata/make_golden.py for how they were computed.
type golden struct {
	Signature string `json:"signature"`
	Sentences []struct {
		Hyp         string     `json:"hyp"`
		Ref         string     `json:"ref"`
		ChrF        float64    `json:"chrf"`
		RougeL      [3]float64 `json:"rougeL"`
		RougeLChars [3]float64 `json:"rougeL_chars"`
	} `json:"sentences"`
	MultiRef []struct {
		Hyp  string   `json:"hyp"`
		Refs []string `json:"refs"`
		ChrF float64  `json:"chrf"`
	} `json:"multi_ref"`
	Corpus struct {
		Hyps []string `json:"hyps"`
		Refs []string `json:"refs"`
		ChrF float64  `json:"chrf"`
	} `json:"corpus"`
}

func loadGolden(t *testing.T) golden {
	t.Helper()
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

const tol = 1e-12

func TestChrFMatchesSacrebleu(t *testing.T) {
	g := loadGolden(t)
	if g.Signature[:len("nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no")] != "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no" {
		t.Fatalf("golden made with another configuration: %s", g.Signature)
	}
	for _, c := range g.Sentences {
		if got := 100 * ChrF(c.Hyp, c.Ref); math.Abs(got-c.ChrF) > tol {
			t.Errorf("chrF(%q, %q) = %.15g, sacrebleu %.15g", c.Hyp, c.Ref, got, c.ChrF)
		}
	}
	for _, c := range g.MultiRef {
		if got := 100 * ChrF(c.Hyp, c.Refs...); math.Abs(got-c.ChrF) > tol {
			t.Errorf("chrF(%q, %q) = %.15g, sacrebleu %.15g", c.Hyp, c.Refs, got, c.ChrF)
		}
	}
	refs := make([][]string, len(g.Corpus.Refs))
	for i, r := range g.Corpus.Refs {
		refs[i] = []string{r}
	}
	if got := 100 * CorpusChrF(g.Corpus.Hyps, refs); math.Abs(got-g.Corpus.ChrF) > tol {
		t.Errorf("corpus chrF = %.15g, sacrebleu %.15g", got, g.Corpus.ChrF)
	}
}

func TestRougeLMatchesRougeScore(t *testing.T) {
	g := loadGolden(t)
	check := func(name string, got PRF, want [3]float64, hyp, ref string) {
		t.Helper()
		if math.Abs(got.Precision-want[0]) > tol || math.Abs(got.Recall-want[1]) > tol || math.Abs(got.F-want[2]) > tol {
			t.Errorf("%s(target %q, prediction %q) = %+v, rouge-score %v", name, ref, hyp, got, want)
		}
	}
	for _, c := range g.Sentences {
		check("RougeL", RougeL(c.Ref, c.Hyp), c.RougeL, c.Hyp, c.Ref)
		check("RougeLChars", RougeLChars(c.Ref, c.Hyp), c.RougeLChars, c.Hyp, c.Ref)
	}
}

func TestRougeCharTokens(t *testing.T) {
	got := RougeCharTokens("iPhone 15 Pro 的价格，多少？")
	want := []string{"iphone", "15", "pro", "的", "价", "格", "多", "少"}
	if len(got) != len(want) {
		t.Fatalf("tokens = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tokens = %q, want %q", got, want)
		}
	}
}
