package fewshot

import (
	"slices"
	"testing"
)

func TestDrawMatchesLMEval(t *testing.T) {
	// lm-eval's first two gsm8k draws at seed 1234 over the 7473 train
	// documents (evals/math/testdata/lmeval/gsm8k.json).
	got, err := Draw("default", 7473, 2, 5, 1234)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{6374, 3610, 957, 61, 742}, {7462, 6610, 4769, 286, 5501}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("draws %v, lm-eval drew %v", got, want)
	}
}

func TestSampleExcludesTheDocument(t *testing.T) {
	// random.Random(1234).sample(range(10), 4) is [7, 1, 0, 9] in CPython.
	s, err := New("", 10, 1234)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Sample(3, func(j int) bool { return j == 1 })
	if err != nil || !slices.Equal(got, []int{7, 0, 9}) {
		t.Errorf("default with the document at 1: %v, %v; want [7 0 9]", got, err)
	}
	f, err := New("first_n", 4, 1234)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.Sample(3, func(j int) bool { return j == 0 }); err != nil || !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("first_n without document 0: %v, %v", got, err)
	}
	if _, err := f.Sample(4, func(j int) bool { return j == 0 }); err == nil {
		t.Error("first_n: 4 of the 3 other documents: no error")
	}
	if _, err := New("balanced", 4, 0); err == nil {
		t.Error("unknown sampler accepted")
	}
	if _, err := Draw("default", 3, 1, 4, 0); err == nil {
		t.Error("4 of 3 documents: no error")
	}
}
