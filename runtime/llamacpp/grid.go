//go:build !nollamacpp

package llamacpp

import "github.com/hybridgroup/yzma/pkg/llama"

// Exact prefix reuse (batching off). A token's logits, and the KV entries
// of a prompt position, depend in their last bits on how the prompt was cut
// into decodes: a matrix product over 512 rows is not computed as one over
// 37. So in exact mode every prompt is cut on one grid, fixed by positions
// alone: a decode of prompt tokens never crosses a multiple of nBatch, and
// a prompt evaluated from position 0 is cut exactly as llama.cpp's own
// n_batch chunking cuts it. A chunk [k·nBatch, (k+1)·nBatch) evaluated
// whole holds the same bits whatever came before or after it in the
// sequence, so a new prompt that shares whole chunks with what its
// sequence holds can keep them and evaluate only the rest, on the same
// grid: its tokens, logits and KV entries are those of an evaluation from
// an empty cache. Only whole chunks of prompt tokens are kept (a chunk cut
// short by a prompt's end, or generated tokens, were evaluated otherwise).
// Each context holds one sequence, whose cells are positions 0..n-1 in
// order, as after a fresh start (truncate removes the tail, and llama.cpp
// places the next tokens in the freed cells from the first one).

// gridChunk cuts a prompt segment of up to n tokens starting at the end of
// sl's sequence so that it ends at the next grid line.
func (d *decoder) gridChunk(sl *slot, n int) int {
	pos := len(sl.cache)
	return min(n, d.nBatch-pos%d.nBatch)
}

// noteGrid records a decode of n tokens appended to sl's sequence: whole
// aligned chunks of prompt tokens extend the reusable grid prefix.
func (d *decoder) noteGrid(sl *slot, prefill bool, n int) {
	pos := len(sl.cache)
	if prefill && n == d.nBatch && pos%d.nBatch == 0 && pos == sl.gridded {
		sl.gridded += n
	}
}

// gridKeep is how many leading tokens of want a job on sl keeps: the whole
// grid chunks sl holds that want starts with.
func (d *decoder) gridKeep(sl *slot, want []llama.Token) int {
	n := min(commonPrefix(sl.cache, want), sl.gridded)
	return n - n%d.nBatch
}
