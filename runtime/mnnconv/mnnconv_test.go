package mnnconv

import (
	"bytes"
	"context"
	"encoding/base64"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

func sharedModel(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "models", "gguf", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test model missing: %v", err)
	}
	return p
}

func TestOpenReadsHyperparameters(t *testing.T) {
	m, err := Open(sharedModel(t, "stories260K.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Arch != "llama" || m.Vocab != 512 || m.Hidden != 64 || m.Layers != 5 || m.Heads != 8 || m.KVHeads != 4 ||
		m.HeadDim != 8 || m.FFN != 172 || m.Eps != float64(float32(1e-5)) || m.Theta != 10000 || !m.Interleaved || m.Tied || m.QKNorm {
		t.Fatalf("stories260K: %+v", m)
	}
	dir := t.TempDir()
	for _, s := range synths {
		m, err := Open(s.write(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if m.Arch != s.arch || m.Tied != s.tied || m.QKNorm != s.qkNorm || m.KVHeads != s.kv || m.Interleaved != (s.arch == "llama") ||
			m.Theta != float64(float32(s.theta)) {
			t.Errorf("%s: %+v", s.name, m)
		}
	}
}

func TestOpenRefusesUnsupported(t *testing.T) {
	dir := t.TempDir()
	bad := synths[0]
	bad.arch, bad.name = "gemma", "gemma"
	if _, err := Open(bad.write(t, dir)); err == nil || !strings.Contains(err.Error(), `architecture "gemma" is not supported`) {
		t.Fatalf("gemma: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.gguf")); err == nil {
		t.Fatal("a missing file opened")
	}
}

func TestDeinterleave(t *testing.T) {
	// 2 heads of dimension 4, 1 input: rows 0..7.
	w := []float32{0, 1, 2, 3, 4, 5, 6, 7}
	got := deinterleave(w, 2, 4, 1)
	want := []float32{0, 2, 1, 3, 4, 6, 5, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("deinterleave = %v, want %v", got, want)
		}
	}
}

// The tokenizer.txt of stories260K keeps every id with its piece, score
// and type, BOS as the prefix and EOS as the stop token.
func TestWriteTokenizerSentencePiece(t *testing.T) {
	m, err := Open(sharedModel(t, "stories260K.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.ReadVocab()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := v.WriteTokenizer(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "430 0" || lines[1] != "2 1 1" || lines[2] != "1 2 2 1" || lines[3] != "512" || len(lines) != 4+512 {
		t.Fatalf("header %q, %d lines", lines[:4], len(lines))
	}
	for i, want := range map[int]string{0: "<unk> 0 2", 1: "<s> 0 3", 3: "<0x00> 0 6", 259: "▁t -0 1"} {
		f := strings.Fields(lines[4+i])
		tok, _ := base64.StdEncoding.DecodeString(f[0])
		if got := string(tok) + " " + f[1] + " " + f[2]; got != want {
			t.Errorf("id %d: %q, want %q", i, got, want)
		}
	}
}

func TestWriteTokenizerBPE(t *testing.T) {
	m, err := Open(synths[0].write(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.ReadVocab()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := v.WriteTokenizer(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if lines[0] != "430 3" {
		t.Fatalf("type line %q", lines[0])
	}
	counts := strings.Fields(lines[3])
	if counts[0] != "300" || len(lines) != 4+300+len(v.Merges) || lines[4+300] != v.Merges[0] || lines[4+299] != v.Tokens[299] {
		t.Fatalf("vocabulary and merges: %q, %d lines", lines[3], len(lines))
	}
}

// The reference forward pass agrees with llama.cpp on the same files (with
// llama.cpp's f16 KV cache imitated): it is an independent check of what
// MNN computes from the converted packages.
func TestReferenceMatchesLlamaCpp(t *testing.T) {
	if testing.Short() {
		t.Skip("loads llama.cpp")
	}
	if _, err := llamacpp.LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	dir := t.TempDir()
	paths := []string{sharedModel(t, "stories260K.gguf")}
	for _, s := range synths {
		paths = append(paths, s.write(t, dir))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			m, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := NewReference(m)
			if err != nil {
				t.Fatal(err)
			}
			ref.HalfKV = true
			toks := testTokens(m.Vocab, 48)
			want, err := ref.Logits(toks)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: p, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			t32 := make([]int32, len(toks))
			for i, x := range toks {
				t32[i] = int32(x)
			}
			var got [][]float32
			if err := rt.Logits(context.Background(), t32, 0, func(pos int, l []float32) error {
				got = append(got, append([]float32(nil), l...))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			// llama.cpp multiplies Q8_0 weights with activations quantized
			// to Q8_0 too, so near-ties may part there.
			checkClose(t, "llama.cpp", got, want, 0.02, 0.95)
		})
	}
}

// testTokens is a fixed sequence of ids spread over the vocabulary.
func testTokens(vocab, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i*7919 + 13) % vocab
	}
	return out
}

// checkClose fails unless the largest logit is the same at a share
// minTop1 of the positions and logits differ by at most tol times the
// position's logit range; it logs the largest difference and the mean KL
// divergence.
func checkClose(t *testing.T, what string, got, want [][]float32, tol, minTop1 float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d positions, want %d", what, len(got), len(want))
	}
	var worst, kl float64
	top1 := 0
	for p := range want {
		g, w := got[p], want[p]
		if len(g) != len(w) {
			t.Fatalf("%s: position %d has %d logits, want %d", what, p, len(g), len(w))
		}
		lo, hi := w[0], w[0]
		for _, x := range w {
			lo, hi = min(lo, x), max(hi, x)
		}
		for i := range w {
			worst = math.Max(worst, math.Abs(float64(g[i]-w[i]))/float64(hi-lo))
		}
		if argmax(g) == argmax(w) {
			top1++
		}
		kl += klDiv(w, g)
	}
	t.Logf("%s: %d positions, top-1 agreement %d, largest |Δlogit| %.2g of the logit range, mean KL %.3g", what, len(want), top1, worst, kl/float64(len(want)))
	if worst > tol || float64(top1) < minTop1*float64(len(want)) {
		t.Errorf("%s: logits differ from the reference: largest |Δ| %.3g of the range (tolerance %.3g), top-1 agreement %d/%d", what, worst, tol, top1, len(want))
	}
}

func argmax(v []float32) int {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return b
}

// klDiv is KL(softmax(p) || softmax(q)).
func klDiv(p, q []float32) float64 {
	lp, lq := logSoftmax(p), logSoftmax(q)
	var s float64
	for i := range lp {
		s += math.Exp(lp[i]) * (lp[i] - lq[i])
	}
	return s
}

func logSoftmax(x []float32) []float64 {
	mx := float64(x[argmax(x)])
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v) - mx)
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v) - mx - math.Log(s)
	}
	return out
}
