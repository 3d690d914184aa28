package compare

import (
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/stats"
)

func TestCompareMcNemar(t *testing.T) {
	t.Parallel()
	base := rundirtest.Pattern(200, 120)
	cand := append([]float64(nil), base...)
	// Candidate loses 30 items and gains 2.
	lost := 0
	for i := range cand {
		if cand[i] == 1 && lost < 30 {
			cand[i] = 0
			lost++
		}
	}
	gained := 0
	for i := range cand {
		if base[i] == 0 && gained < 2 {
			cand[i] = 1
			gained++
		}
	}
	a := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "a.gguf", map[string][]float64{"gsm8k": base}, 100, 200))
	b := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "b.gguf", map[string][]float64{"gsm8k": cand}, 120, 150))
	c, err := Runs(a, b, Options{Seed: 1, Resamples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Tasks[0]
	if tc.Test != "mcnemar-exact" || tc.OnlyA != 30 || tc.OnlyB != 2 || !tc.Significant {
		t.Errorf("comparison: %+v", tc)
	}
	if want := stats.McNemarExact(30, 2); tc.P != want {
		t.Errorf("p = %v, want %v", tc.P, want)
	}
	if !(tc.Hi < 0) {
		t.Errorf("interval [%v,%v] should be below 0", tc.Lo, tc.Hi)
	}
}

func TestCompareRefusesMisaligned(t *testing.T) {
	t.Parallel()
	a := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "a", map[string][]float64{"gsm8k": rundirtest.Pattern(50, 20)}, 0, 0))
	b := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "b", map[string][]float64{"gsm8k": rundirtest.Pattern(40, 20)}, 0, 0))
	_, err := Runs(a, b, Options{})
	var ae *AlignmentError
	if err == nil || !strings.Contains(err.Error(), "only in A") {
		t.Fatalf("err = %v", err)
	}
	if !asAlignment(err, &ae) {
		t.Errorf("not an AlignmentError: %T", err)
	}
	// A different dataset hash is refused too.
	c := rundirtest.FakeRun(t, "c", map[string][]float64{"gsm8k": rundirtest.Pattern(50, 20)}, 0, 0)
	m, _ := results.ReadManifest(c)
	m.Config.Tasks[0].DatasetFiles["gsm8k.jsonl"] = "def"
	results.WriteManifest(c, m)
	if _, err := Runs(a, rundirtest.MustLoad(t, c), Options{}); err == nil || !strings.Contains(err.Error(), "different dataset") {
		t.Errorf("err = %v", err)
	}
}

func asAlignment(err error, ae **AlignmentError) bool {
	e, ok := err.(*AlignmentError)
	*ae = e
	return ok
}
