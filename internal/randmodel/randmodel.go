// Package randmodel writes random-weight language models as GGUF files
// that llama.cpp loads and runs, so that speed and memory work is measured
// on a real model shape (MNN-Pocket-0.3B's, say) without the real weights.
//
// A model is a Shape (llama.cpp's qwen3 architecture: RMSNorm, grouped-query
// attention with q/k RMSNorm and RoPE, SwiGLU feed-forward, tied
// embeddings), a tensor type for its matrices (F32, F16, Q8_0 or Q4_0,
// encoded as ggml's reference quantisers do), a tokenizer (SyntheticBPE or
// CutVocab) and a seed: the same inputs give the same file, byte for byte.
// Norm weights are 1 and stay F32, as in llama.cpp's quantised files; every
// matrix, the token embedding included, gets the one tensor type (like
// llama-quantize --pure).
//
// Outputs are gibberish. The weights are scaled so that generation does
// not collapse into repeating the last token (the residual stream is
// dominated by the blocks, not by the tied embedding) and the next-token
// distribution is peaked rather than flat, but nothing makes the logit
// margins those of a trained model.
package randmodel

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/pocketeval/pocketeval/internal/gguf"
)

// Shape is a qwen3-architecture model's dimensions.
type Shape struct {
	Layers     int
	Hidden     int // n_embd
	FFN        int // feed-forward width
	Heads      int // query heads
	KVHeads    int
	HeadDim    int
	Vocab      int
	Context    int     // training context (qwen3.context_length)
	RopeBase   float32 // RoPE frequency base
	NormEps    float32 // RMSNorm epsilon
	TiedOutput bool    // no output.weight: the token embedding is the output matrix
}

// Shapes are the named shapes the ggufgen tool knows.
var Shapes = map[string]Shape{
	// MNN-Pocket-0.3B as its GGUF export's metadata describes it.
	"pocket-0.3b": {Layers: 28, Hidden: 896, FFN: 2560, Heads: 14, KVHeads: 2, HeadDim: 64,
		Vocab: 65536, Context: 32768, RopeBase: 1e6, NormEps: 1e-6, TiedOutput: true},
	// A few-hundred-kilobyte model for tests.
	"tiny": {Layers: 2, Hidden: 64, FFN: 128, Heads: 4, KVHeads: 2, HeadDim: 16,
		Vocab: 512, Context: 2048, RopeBase: 1e6, NormEps: 1e-6, TiedOutput: true},
}

// Check reports a shape llama.cpp's qwen3 loader would reject or that the
// tensor type cannot encode.
func (s Shape) Check(t gguf.TensorType) error {
	switch {
	case s.Layers < 1 || s.Hidden < 1 || s.FFN < 1 || s.Heads < 1 || s.KVHeads < 1 || s.HeadDim < 2 || s.Vocab < 1 || s.Context < 1:
		return fmt.Errorf("shape %+v: every dimension must be positive", s)
	case s.Heads%s.KVHeads != 0:
		return fmt.Errorf("shape: %d query heads are not a multiple of %d KV heads", s.Heads, s.KVHeads)
	case s.HeadDim%2 != 0:
		return fmt.Errorf("shape: head dim %d is odd (RoPE rotates pairs)", s.HeadDim)
	}
	for _, n := range []int{s.Hidden, s.FFN, s.Heads * s.HeadDim} {
		if _, err := t.RowBytes(uint64(n)); err != nil {
			return fmt.Errorf("shape: %w", err)
		}
	}
	return nil
}

// Params counts the model's weights (the tied embedding once).
func (s Shape) Params() int64 {
	q, kv := int64(s.Heads*s.HeadDim), int64(s.KVHeads*s.HeadDim)
	h, f := int64(s.Hidden), int64(s.FFN)
	layer := 2*h + 2*int64(s.HeadDim) + h*q + 2*h*kv + q*h + 3*h*f
	n := int64(s.Vocab)*h + h + int64(s.Layers)*layer
	if !s.TiedOutput {
		n += int64(s.Vocab) * h
	}
	return n
}

// tensor is one weight: its ggml shape {columns, rows} and how its values
// are drawn.
type tensor struct {
	name string
	cols int
	rows int // 1 for a vector
	std  float64
	one  bool // a norm weight: all ones, always F32
}

// tensors lists the model's weights in llama.cpp's naming.
func (s Shape) tensors() []tensor {
	q, kv := s.Heads*s.HeadDim, s.KVHeads*s.HeadDim
	// Matrices are scaled by 1/sqrt(fan-in), so every block's output is as
	// large as its normalised input and the residual stream is not just
	// the input token's embedding; the embedding's scale sets the logits'
	// spread (sqrt(Hidden)*embStd = 4).
	w := func(fanIn int) float64 { return 1 / math.Sqrt(float64(fanIn)) }
	embStd := 4 / math.Sqrt(float64(s.Hidden))
	ts := []tensor{{name: "token_embd.weight", cols: s.Hidden, rows: s.Vocab, std: embStd}}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			tensor{name: p + "attn_norm.weight", cols: s.Hidden, rows: 1, one: true},
			tensor{name: p + "attn_q.weight", cols: s.Hidden, rows: q, std: w(s.Hidden)},
			tensor{name: p + "attn_k.weight", cols: s.Hidden, rows: kv, std: w(s.Hidden)},
			tensor{name: p + "attn_v.weight", cols: s.Hidden, rows: kv, std: w(s.Hidden)},
			tensor{name: p + "attn_q_norm.weight", cols: s.HeadDim, rows: 1, one: true},
			tensor{name: p + "attn_k_norm.weight", cols: s.HeadDim, rows: 1, one: true},
			tensor{name: p + "attn_output.weight", cols: q, rows: s.Hidden, std: w(q)},
			tensor{name: p + "ffn_norm.weight", cols: s.Hidden, rows: 1, one: true},
			tensor{name: p + "ffn_gate.weight", cols: s.Hidden, rows: s.FFN, std: w(s.Hidden)},
			tensor{name: p + "ffn_up.weight", cols: s.Hidden, rows: s.FFN, std: w(s.Hidden)},
			tensor{name: p + "ffn_down.weight", cols: s.FFN, rows: s.Hidden, std: w(s.FFN)},
		)
	}
	ts = append(ts, tensor{name: "output_norm.weight", cols: s.Hidden, rows: 1, one: true})
	if !s.TiedOutput {
		ts = append(ts, tensor{name: "output.weight", cols: s.Hidden, rows: s.Vocab, std: embStd})
	}
	return ts
}

// fileType is general.file_type (enum llama_ftype) for a tensor type.
func fileType(t gguf.TensorType) uint32 {
	switch t {
	case gguf.F16:
		return 1 // LLAMA_FTYPE_MOSTLY_F16
	case gguf.Q4_0:
		return 2 // LLAMA_FTYPE_MOSTLY_Q4_0
	case gguf.Q8_0:
		return 7 // LLAMA_FTYPE_MOSTLY_Q8_0
	}
	return 0 // LLAMA_FTYPE_ALL_F32
}

// Options are what Write needs besides the shape.
type Options struct {
	Name  string          // general.name
	Type  gguf.TensorType // of every matrix
	Vocab *Vocab          // len(Vocab.Tokens) must equal Shape.Vocab
	Seed  uint64
}

// Write writes the model to w.
func Write(w io.Writer, s Shape, o Options) error {
	if err := s.Check(o.Type); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	if o.Vocab == nil || len(o.Vocab.Tokens) != s.Vocab || len(o.Vocab.Types) != s.Vocab {
		return fmt.Errorf("write model: the tokenizer must have exactly %d tokens", s.Vocab)
	}
	const arch = "qwen3"
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: arch},
		{Key: "general.name", Value: o.Name},
		{Key: "general.file_type", Value: fileType(o.Type)},
		{Key: "general.quantization_version", Value: uint32(2)},
		{Key: arch + ".block_count", Value: uint32(s.Layers)},
		{Key: arch + ".context_length", Value: uint32(s.Context)},
		{Key: arch + ".embedding_length", Value: uint32(s.Hidden)},
		{Key: arch + ".feed_forward_length", Value: uint32(s.FFN)},
		{Key: arch + ".attention.head_count", Value: uint32(s.Heads)},
		{Key: arch + ".attention.head_count_kv", Value: uint32(s.KVHeads)},
		{Key: arch + ".attention.key_length", Value: uint32(s.HeadDim)},
		{Key: arch + ".attention.value_length", Value: uint32(s.HeadDim)},
		{Key: arch + ".rope.freq_base", Value: s.RopeBase},
		{Key: arch + ".attention.layer_norm_rms_epsilon", Value: s.NormEps},
	}
	kvs = append(kvs, o.Vocab.kvs()...)
	var tensors []gguf.Tensor
	for i, t := range s.tensors() {
		typ, shape := o.Type, []uint64{uint64(t.cols), uint64(t.rows)}
		if t.one {
			typ, shape = gguf.F32, shape[:1]
		}
		tensors = append(tensors, gguf.Tensor{
			Name: t.name, Shape: shape, Type: typ,
			WriteData: func(w io.Writer) error { return t.write(w, typ, o.Seed, uint64(i)) },
		})
	}
	return gguf.Write(w, kvs, tensors)
}

// write draws the tensor row by row from a generator seeded by the model
// seed and the tensor's index, so each tensor is reproducible on its own.
func (t tensor) write(w io.Writer, typ gguf.TensorType, seed, index uint64) error {
	rng := rand.New(rand.NewPCG(seed, index))
	row := make([]float32, t.cols)
	var buf []byte
	for range t.rows {
		for j := range row {
			if t.one {
				row[j] = 1
			} else {
				row[j] = float32(rng.NormFloat64() * t.std)
			}
		}
		var err error
		if buf, err = gguf.Encode(buf[:0], typ, row); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
