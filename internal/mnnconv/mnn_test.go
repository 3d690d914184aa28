//go:build mnn

package mnnconv

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// mnnTool is the mnnconvert executable (scripts/ci-mnn-convert.sh builds
// it and sets POCKETEVAL_MNNCONVERT).
func mnnTool(t *testing.T) string {
	t.Helper()
	p := os.Getenv("POCKETEVAL_MNNCONVERT")
	if p == "" {
		t.Skip("POCKETEVAL_MNNCONVERT is not set (build tools/mnnconvert; scripts/ci-mnn-convert.sh does)")
	}
	return p
}

// The converted packages compute on MNN what the reference forward pass
// computes from the GGUF file: llama (interleaved rotary pairs, GQA,
// untied output), qwen2 (biases, F16 and Q8_0 tensors), qwen3 (q/k norms,
// tied output, BF16 tensors), at float32 and at MNN's 8- and 4-bit
// weights (against the reference with the same rounding).
func TestConvertedMatchesReference(t *testing.T) {
	tool := mnnTool(t)
	dir := t.TempDir()
	paths := []string{sharedModel(t, "stories260K.gguf")}
	for _, s := range synths {
		paths = append(paths, s.write(t, dir))
	}
	for _, p := range paths {
		for _, bits := range []int{0, 8, 4} {
			name := filepath.Base(p) + map[int]string{0: "/fp32", 8: "/int8", 4: "/int4"}[bits]
			t.Run(name, func(t *testing.T) {
				m, err := Open(p)
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, filepath.Base(p)+"-"+map[int]string{0: "fp32", 8: "int8", 4: "int4"}[bits])
				if _, err := Convert(context.Background(), m, Options{Out: out, Bits: bits, Block: 32, Tool: tool, EmbedParts: 3}); err != nil {
					t.Fatal(err)
				}
				ref, err := NewReference(m)
				if err != nil {
					t.Fatal(err)
				}
				if bits > 0 {
					ref.Quantize(bits, 32)
				}
				toks := testTokens(m.Vocab, 48)
				want, err := ref.Logits(toks)
				if err != nil {
					t.Fatal(err)
				}
				// memory "normal": MNN's "low" also quantizes the
				// activations of quantized layers to 8 bits.
				rt, err := mnn.Open(context.Background(), out, mnn.Options{Threads: 1, Precision: "high", Memory: "normal"})
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
				checkClose(t, "mnn "+name, got, want, 2e-3, 1)
			})
		}
	}
}
