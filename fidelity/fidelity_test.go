//go:build !nollamacpp

package fidelity

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// Encoding keeps every log-probability within half a quantization step
// over the 16 nats below the top token, and rounds as llama-perplexity.
func TestEncodeRoundTrip(t *testing.T) {
	for _, c := range []struct {
		f    float32
		want int32
	}{{0.5, 0}, {1.5, 2}, {2.5, 2}, {2.49, 2}, {65534.6, 65535}} {
		if got := nearestInt(c.f); got != c.want {
			t.Errorf("nearestInt(%v) = %d, want %d", c.f, got, c.want)
		}
	}
	logits := []float32{3, 1, -2, 0.5, -40, 3}
	rec := make([]uint16, recordLen(len(logits)))
	nll := encode(logits, rec, 1)
	lse, _, _, _ := logSumExp(logits)
	if want := float64(lse - logits[1]); math.Abs(nll-want) > 1e-6 {
		t.Fatalf("nll %v, want %v", nll, want)
	}
	d := decode(rec, len(logits))
	for i, l := range logits {
		lp := float64(l - lse)
		got := float64(d.logProb(i))
		if lp < float64(d.minLP) {
			if got != float64(d.minLP) {
				t.Errorf("token %d below the floor: %v, want the floor %v", i, got, d.minLP)
			}
			continue
		}
		if math.Abs(got-lp) > float64(d.scale) {
			t.Errorf("token %d: log-prob %v read back as %v (step %v)", i, lp, got, d.scale)
		}
	}
	if len(rec)*2 != BytesPerPosition(len(logits)) {
		t.Fatal("BytesPerPosition disagrees with the record")
	}
}

func TestQuantileInterval(t *testing.T) {
	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i)
	}
	iv := quantileInterval(xs, 0.99)
	if iv.Value != 989.01 || iv.Lo >= iv.Value || iv.Hi <= iv.Value || iv.Lo < 980 || iv.Hi > 999 {
		t.Fatalf("p99 interval %+v", iv)
	}
}

// quants are the stories260K copies made once per test binary.
var quants = map[string]string{}

func model(t *testing.T, typ string) string {
	t.Helper()
	if _, err := llamacpp.LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed: %v", err)
	}
	src := filepath.Join(sharedtest.Models(t), "gguf", "stories260K.gguf")
	if typ == "F32" {
		return src
	}
	if p, ok := quants[typ]; ok {
		return p
	}
	dir, err := os.MkdirTemp("", "fidelity-quant-")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "stories260K-"+typ+".gguf")
	if err := llamacpp.Quantize("", src, p, typ, 1); err != nil {
		t.Fatal(err)
	}
	quants[typ] = p
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range quants {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

func openLlama(t *testing.T, path string) *llamacpp.Runtime {
	t.Helper()
	rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: path, ContextSize: 128})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func corpus(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(sharedtest.Datasets(t), "bbh", "cot-prompts", "date_understanding.txt"))
	if err != nil {
		t.Skip(err)
	}
	return string(b)
}

// The reference of stories260K F32 compared with itself, Q8_0 and Q4_0:
// itself only differs by the 16-bit storage, Q8_0 less than Q4_0.
func TestCompareQuants(t *testing.T) {
	ref := openLlama(t, model(t, "F32"))
	seqs, err := CorpusSequences(ref, corpus(t), 128, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) < 2 || seqs[0].From != 64 || seqs[1].Tokens[0] != ref.Vocab().BOS {
		t.Fatalf("%d chunks, first from %d", len(seqs), seqs[0].From)
	}
	path := filepath.Join(t.TempDir(), "ref.logits")
	h, cost, err := WriteReference(context.Background(), ref, ref.Describe(), Source{Kind: "text", NCtx: 128}, seqs, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cost.Bytes <= int64(h.Positions*h.BytesPerPosition) || h.BytesPerPosition != 2*516 || h.Positions != len(seqs)*63 {
		t.Fatalf("header %+v cost %+v", h, cost)
	}
	compare := func(rt runtime.Logitser) *TokenReport {
		r, err := OpenReference(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		rep, _, err := Compare(context.Background(), rt, r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	self := compare(ref)
	// The saved log-probabilities floor at 16 nats below the top token, so
	// the reference perplexity read back is a little lower on text this
	// unlikely (llama-perplexity reads it the same way).
	if math.Abs(self.KLMean.Value) > 1e-4 || self.Top1.Value != 1 || math.Abs(self.PPLRatio.Value-1) > 0.01 {
		t.Errorf("reference against itself: KL %v, top-1 %v, PPL ratio %v", self.KLMean.Value, self.Top1.Value, self.PPLRatio.Value)
	}
	q8 := compare(openLlama(t, model(t, "Q8_0")))
	q4 := compare(openLlama(t, model(t, "Q4_0")))
	q41 := compare(openLlama(t, model(t, "Q4_1")))
	for typ, r := range map[string]*TokenReport{"Q8_0": q8, "Q4_0": q4, "Q4_1": q41} {
		checkLlamaPerplexity(t, typ, r)
	}
	t.Logf("Q8_0: KL %.6f p99 %.6f top-1 %.4f PPL %.4f -> %.4f; Q4_0: KL %.6f p99 %.6f top-1 %.4f PPL %.4f",
		q8.KLMean.Value, q8.KLP99.Value, q8.Top1.Value, q8.PPLRef.Value, q8.PPLCand.Value, q4.KLMean.Value, q4.KLP99.Value, q4.Top1.Value, q4.PPLCand.Value)
	if !(q8.KLMean.Value > self.KLMean.Value && q4.KLMean.Value > q8.KLMean.Value) {
		t.Errorf("KL: self %v, Q8_0 %v, Q4_0 %v: want increasing", self.KLMean.Value, q8.KLMean.Value, q4.KLMean.Value)
	}
	if !(q4.Top1.Value < q8.Top1.Value) || q4.KLP99.Value < q4.KLMean.Value {
		t.Errorf("Q8_0 %+v\nQ4_0 %+v", q8, q4)
	}
	if q8.PPLRef != self.PPLRef {
		t.Errorf("the reference perplexity depends on the candidate: %v vs %v", q8.PPLRef, self.PPLRef)
	}

	// A changed file is refused.
	b, _ := os.ReadFile(path)
	b[len(b)-1] ^= 1
	os.WriteFile(path, b, 0o644)
	if _, err := OpenReference(path); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("tampered reference: %v", err)
	}
}

// checkLlamaPerplexity compares a report with llama-perplexity's own
// statistics for the same models and text (testdata/llama-perplexity-*.txt
// says how they were made): within 1%.
func checkLlamaPerplexity(t *testing.T, typ string, r *TokenReport) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "llama-perplexity-"+typ+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.Fields(val)[0], "%")), &v); err == nil {
			want[strings.Join(strings.Fields(name), " ")] = v
		}
	}
	got := map[string]float64{
		"Mean PPL(Q)": r.PPLCand.Value, "Mean PPL(base)": r.PPLRef.Value, "Mean PPL(Q)/PPL(base)": r.PPLRatio.Value,
		"Mean KLD": r.KLMean.Value, "99.0% KLD": r.KLP99.Value, "Median KLD": r.KLMedian, "Maximum KLD": r.KLMax,
		"Same top p": 100 * r.Top1.Value, "RMS Δp": 100 * r.DeltaPRMS.Value,
	}
	for name, g := range got {
		w, ok := want[name]
		if !ok {
			t.Fatalf("%s: llama-perplexity's %q not found", typ, name)
		}
		if math.Abs(g-w) > 0.01*math.Abs(w) {
			t.Errorf("%s %s: pocketeval %v, llama-perplexity %v (more than 1%% apart)", typ, name, g, w)
		}
	}
}

// The nucleus is the smallest most-likely set reaching top-p, ties to the
// lower id.
func TestNucleus(t *testing.T) {
	a := &accum{topP: 0.5}
	probs := []float64{0.1, 0.3, 0.2, 0.3, 0.1}
	got := a.nucleus(nil, len(probs), func(i int) float64 { return probs[i] })
	if !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("top-0.5 set %v", got)
	}
	a.topP = 0.35
	if got := a.nucleus(nil, len(probs), func(i int) float64 { return probs[i] }); !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("top-0.35 set %v", got)
	}
	a.topP = 0.25
	if got := a.nucleus(nil, len(probs), func(i int) float64 { return probs[i] }); !slices.Equal(got, []int{1}) {
		t.Fatalf("top-0.25 set %v", got)
	}
	a.topP = 1
	if got := a.nucleus(nil, len(probs), func(i int) float64 { return probs[i] }); len(got) != 5 {
		t.Fatalf("top-1 set %v", got)
	}
}

// sameNucleus agrees with computing the candidate's nucleus itself.
func TestSameNucleus(t *testing.T) {
	a := &accum{topP: 0.6}
	for _, logits := range [][]float32{{1, 2, 3, 0}, {3, 3, 1, 0}, {0, 0, 0, 0}, {5, -1, 4.9, 2}} {
		lse, _, _, _ := logSumExp(logits)
		want := a.nucleus(nil, len(logits), func(i int) float64 { return math.Exp(float64(logits[i] - lse)) })
		for _, set := range [][]int{want, {0}, {0, 1}, {1, 2}, {0, 2}, {2}, {0, 1, 2, 3}} {
			if got := a.sameNucleus(set, logits, lse); got != slices.Equal(set, want) {
				t.Errorf("logits %v set %v: %v, nucleus %v", logits, set, got, want)
			}
		}
	}
}
