//go:build !nollamacpp

package llamacpp

import (
	"fmt"
	"math"
	"slices"

	"github.com/hybridgroup/yzma/pkg/llama"
)

// Exact batching (Batch "exact") decodes the next tokens of several
// sequences in one llama_decode only where that leaves every bit of their
// logits as decoding each alone gives. Whether it does is a property of
// the kernels ggml picks for the model's weight types on this CPU: for F32
// and F16 weights a product with one row goes to vec_dot and one with
// several to llamafile's tinyBLAS, whose sums are ordered otherwise, so
// the bits differ; the quantized Q4_0 and Q8_0 kernels give each row the
// same sum either way (TestBatchInvarianceProbe). The attention is per
// sequence: each sequence has a KV stream of its own, whose cells are
// positions 0..n-1 as in a context of its own, and flash attention skips
// the masked cells past its end. Prompts are decoded alone, on the grid
// of batching off (grid.go). checkInvariant tests the kernels when the
// runtime opens.

// checkInvariant decodes n short sequences (n the decoder's slots) one
// token at a time, first each alone, then 2, 3, ..., n of them together,
// and returns ErrNotBatchInvariant unless every logit is bit-identical.
// It leaves the cache empty.
func (d *decoder) checkInvariant() error {
	n := len(d.slots)
	tok := func(i, k int) llama.Token {
		return llama.Token((int(d.r.benchTk) + 1 + 31*i + 7*k) % d.r.nVocab)
	}
	prompt := func(i int) int { return 2 + i%3 }
	const steps = 2
	llama.MemoryClear(d.mem, false)
	defer llama.MemoryClear(d.mem, false)
	// decode evaluates token k (0: the whole prompt) of the sequences
	// in seqs in one decode and returns the logits of each one's last
	// token.
	decode := func(seqs []int, k int) ([][]float32, error) {
		d.batch.Clear()
		last := make([]int32, len(seqs))
		for j, i := range seqs {
			from, to := 0, prompt(i)
			if k > 0 {
				from, to = prompt(i)+k-1, prompt(i)+k
			}
			for p := from; p < to; p++ {
				if err := d.batch.Add(tok(i, p), llama.Pos(p), d.slots[i].ids, p == to-1); err != nil {
					return nil, err
				}
			}
			last[j] = d.batch.NTokens - 1
		}
		if err := d.decode(); err != nil {
			return nil, err
		}
		out := make([][]float32, len(seqs))
		for j, at := range last {
			l, err := d.logits(at)
			if err != nil {
				return nil, err
			}
			out[j] = slices.Clone(l)
		}
		return out, nil
	}
	// rewind drops the decoded tokens after each sequence's prompt.
	rewind := func(seqs []int) {
		for _, i := range seqs {
			llama.MemorySeqRm(d.mem, d.slots[i].seq, llama.Pos(prompt(i)), -1)
		}
	}
	alone := make([][][]float32, n) // [sequence][step]
	for i := range n {
		if _, err := decode([]int{i}, 0); err != nil {
			return fmt.Errorf("check batch invariance: %w", err)
		}
		for k := 1; k <= steps; k++ {
			l, err := decode([]int{i}, k)
			if err != nil {
				return fmt.Errorf("check batch invariance: %w", err)
			}
			alone[i] = append(alone[i], l[0])
		}
		rewind([]int{i})
	}
	for m := 2; m <= n; m++ {
		seqs := make([]int, m)
		for i := range seqs {
			seqs[i] = i
		}
		for k := 1; k <= steps; k++ {
			got, err := decode(seqs, k)
			if err != nil {
				return fmt.Errorf("check batch invariance: %w", err)
			}
			for i := range m {
				if worst, ok := sameBits(alone[i][k-1], got[i]); !ok {
					return fmt.Errorf("%w: a token decoded in one step with %d sequences gets other logits than decoded alone (by up to %.3g): for this model's weight types ggml multiplies one row and several with kernels that sum in different orders (F32 and F16 weights do; Q4_0 and Q8_0 do not)", ErrNotBatchInvariant, m, worst)
				}
			}
		}
		rewind(seqs)
	}
	return nil
}

// sameBits reports whether a and b are equal bit for bit, and else the
// largest difference.
func sameBits(a, b []float32) (worst float64, same bool) {
	same = true
	for k := range a {
		if math.Float32bits(a[k]) != math.Float32bits(b[k]) {
			same = false
			worst = max(worst, math.Abs(float64(a[k])-float64(b[k])))
		}
	}
	return worst, same
}
