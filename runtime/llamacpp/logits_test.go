//go:build !nollamacpp

package llamacpp

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// The logits of a sequence are those the log-likelihood path sees: the
// log-softmax of the logits at position p, at token p+1, summed over the
// continuation, is LogLikelihood's answer.
func TestLogitsMatchLogLikelihood(t *testing.T) {
	rt := open(t, stories, Options{Workers: 2})
	ctxText, cont := "Once upon a time", " there was a little girl"
	toks, err := rt.Tokenize(ctxText+cont, true)
	if err != nil {
		t.Fatal(err)
	}
	ctxToks, _ := rt.Tokenize(ctxText, true)
	n := len(ctxToks)
	var sum float64
	var seen []int
	err = rt.Logits(context.Background(), toks, n-1, func(pos int, l []float32) error {
		seen = append(seen, pos)
		if pos+1 < len(toks) {
			lp, _ := logSoftmaxAt(l, int(toks[pos+1]))
			sum += lp
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(toks)-n+1 || seen[0] != n-1 || seen[len(seen)-1] != len(toks)-1 {
		t.Fatalf("positions %v, want %d..%d", seen, n-1, len(toks)-1)
	}
	want := runtimeLoglik(t, rt, ctxText, cont)
	if math.Abs(sum-want) > 1e-3 {
		t.Fatalf("sum of logit log-probs %v, LogLikelihood %v", sum, want)
	}
	v := rt.Vocab()
	if v.Size != 512 || len(v.SHA256) != 64 || !v.AddBOS || v.BOS < 0 {
		t.Fatalf("Vocab() = %+v", v)
	}
	if toks[0] != v.BOS {
		t.Fatalf("first token %d, want BOS %d", toks[0], v.BOS)
	}
	if err := rt.Logits(context.Background(), toks, len(toks), nil); err == nil {
		t.Fatal("Logits from past the end: no error")
	}
	if err := rt.Logits(context.Background(), make([]int32, rt.nCtx+1), 0, nil); err == nil {
		t.Fatal("Logits over the context: no error")
	}
}

// Quantize goes through libllama; a Q8_0 copy opens, shares the vocabulary
// and its logits stay close to the F32 model's.
func TestQuantize(t *testing.T) {
	in := modelPath(t, stories)
	out := filepath.Join(t.TempDir(), "q8.gguf")
	if err := Quantize("", in, out, "q8_0", 1); err != nil {
		t.Fatal(err)
	}
	if err := Quantize("", in, out, "Q3_Z", 1); err == nil {
		t.Fatal("unknown type: no error")
	}
	ref := open(t, stories, Options{})
	q, err := Open(context.Background(), Options{Model: out})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if ref.Vocab() != q.Vocab() {
		t.Fatalf("vocabularies differ: %+v %+v", ref.Vocab(), q.Vocab())
	}
	toks, _ := ref.Tokenize("Once upon a time there was", true)
	last := func(rt *Runtime) []float32 {
		var out []float32
		if err := rt.Logits(context.Background(), toks, len(toks)-1, func(_ int, l []float32) error {
			out = append([]float32(nil), l...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := last(ref), last(q)
	if argmax(a) != argmax(b) {
		t.Errorf("Q8_0 changes the greedy token: %d vs %d", argmax(a), argmax(b))
	}
	var diff float64
	for i := range a {
		diff = math.Max(diff, math.Abs(float64(a[i]-b[i])))
		if a[i] != b[i] {
			diff = math.Max(diff, 1e-9)
		}
	}
	if diff == 0 || diff > 1 {
		t.Errorf("max |Δlogit| %v: want a small non-zero change", diff)
	}
}

// A text within one window scores as a log-likelihood request with an
// empty context (both condition on BOS); a longer one takes one window
// per context's worth of tokens.
func TestLoglikelihoodRolling(t *testing.T) {
	rt := open(t, stories, Options{ContextSize: 256})
	short := "Once upon a time there was a cat."
	got, err := rt.LoglikelihoodRolling(context.Background(), []string{short})
	if err != nil {
		t.Fatal(err)
	}
	want := runtimeLoglik(t, rt, "", short)
	if math.Abs(got[0].LogProb-want) > 1e-3 || got[0].Windows != 1 {
		t.Fatalf("rolling %+v, loglik %v", got[0], want)
	}
	long := strings.Repeat("The little dog ran to the park and played with a ball. ", 2*rt.nCtx/19)
	toks, _ := rt.Tokenize(long, false)
	got, err = rt.LoglikelihoodRolling(context.Background(), []string{long})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Tokens != len(toks) || got[0].Windows != (len(toks)+rt.nCtx-1)/rt.nCtx || got[0].Windows < 2 || got[0].LogProb >= 0 {
		t.Fatalf("rolling %+v over %d tokens", got[0], len(toks))
	}
}
