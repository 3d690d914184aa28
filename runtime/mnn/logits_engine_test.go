//go:build cgo && mnn

package mnn

import (
	"context"
	"errors"
	"math"
	"testing"
)

// TestEngineLogits checks the all-position logits against the engine's
// other paths: their log-softmax at the next tokens sums to the
// log-likelihood mnnshim_loglik computes, the last row is the logits a
// prompt's forward pass gives, and a second run gives the same numbers.
func TestEngineLogits(t *testing.T) {
	var hashes []string
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			r := openTiny(t, name, Options{Threads: 1})
			v := r.Vocab()
			if v.Size <= 0 || len(v.SHA256) != 64 {
				t.Fatalf("vocab %+v", v)
			}
			hashes = append(hashes, v.SHA256)
			toks, err := r.Tokenize("The quick brown fox jumps over the lazy dog.", true)
			if err != nil {
				t.Fatal(err)
			}
			if len(toks) < 4 {
				t.Fatalf("%d tokens", len(toks))
			}
			ctx := context.Background()
			var rows [][]float32
			err = r.Logits(ctx, toks, 0, func(pos int, l []float32) error {
				if pos != len(rows) || len(l) != v.Size {
					t.Fatalf("position %d with %d logits after %d rows", pos, len(l), len(rows))
				}
				rows = append(rows, append([]float32(nil), l...))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(toks) {
				t.Fatalf("%d rows for %d tokens", len(rows), len(toks))
			}
			ids := make([]int, len(toks))
			for i, tk := range toks {
				ids[i] = int(tk)
			}
			var sum float64
			for p := 0; p+1 < len(ids); p++ {
				sum += logSoftmaxAt(rows[p], ids[p+1])
			}
			e := r.all[0]
			want, _, err := e.Loglik(ids, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sum-want) > 1e-3*math.Max(1, math.Abs(want)) {
				t.Errorf("log-softmax of the rows sums to %g, loglik %g", sum, want)
			}
			last, err := e.Forward(ids, 0)
			if err != nil {
				t.Fatal(err)
			}
			// The int4 kernels at precision "low" take another path for
			// one row than for many: allow a small difference.
			for k := range last {
				if d := math.Abs(float64(last[k] - rows[len(rows)-1][k])); d > 1e-2*math.Max(1, math.Abs(float64(last[k]))) {
					t.Fatalf("last row differs from the forward pass at %d by %g", k, d)
				}
			}
			e.Reset()
			from, n := 2, 0
			err = r.Logits(ctx, toks, from, func(pos int, l []float32) error {
				for k := range l {
					if l[k] != rows[pos][k] {
						t.Fatalf("position %d logit %d: %g then %g", pos, k, rows[pos][k], l[k])
					}
				}
				n++
				return nil
			})
			if err != nil || n != len(toks)-from {
				t.Fatalf("from %d: %d rows, %v", from, n, err)
			}
			stop := errors.New("stop")
			if err := r.Logits(ctx, toks, 0, func(int, []float32) error { return stop }); err != stop {
				t.Errorf("fn's error: got %v", err)
			}
			if err := r.Logits(ctx, []int32{int32(v.Size)}, 0, func(int, []float32) error { return nil }); err == nil {
				t.Error("a token outside the vocabulary was accepted")
			}
			plain, err := r.Tokenize("The quick", false)
			if err != nil || len(plain) == 0 {
				t.Fatalf("tokenize without special tokens: %v %v", plain, err)
			}
		})
	}
	if len(hashes) == 2 && hashes[0] != hashes[1] {
		t.Errorf("the packages share tokenizer.txt but their vocabulary hashes differ: %v", hashes)
	}
}

func logSoftmaxAt(row []float32, target int) float64 {
	mx := math.Inf(-1)
	for _, x := range row {
		mx = math.Max(mx, float64(x))
	}
	var z float64
	for _, x := range row {
		z += math.Exp(float64(x) - mx)
	}
	return float64(row[target]) - mx - math.Log(z)
}
