// Package mnnconv converts a GGUF decoder (llama, qwen2, qwen3) into an MNN
// LLM package: the graph through tools/mnnconvert (MNN's Express API), and
// here the tokenizer, the embeddings and the configuration files. It also
// holds a float32 reference forward pass of the same model, so tests can
// check MNN's logits against the file's weights independently of MNN.
package mnnconv

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pocketeval/pocketeval/internal/gguf"
)

// Model is a GGUF decoder's hyperparameters and access to its tensors.
type Model struct {
	Path    string
	Arch    string // llama, qwen2 or qwen3
	Vocab   int
	Hidden  int
	Layers  int
	Heads   int
	KVHeads int
	HeadDim int
	FFN     int
	Eps     float64 // RMSNorm epsilon
	Theta   float64 // RoPE base
	// Interleaved is true when the file's rotary pairs are adjacent
	// dimensions (llama.cpp's LLAMA_ROPE_TYPE_NORM, the llama
	// architecture); false for the NeoX "rotate half" pairs (qwen2, qwen3).
	Interleaved bool
	QKNorm      bool // attn_q_norm / attn_k_norm present (qwen3)
	Tied        bool // no output.weight: the output shares token_embd

	h       *gguf.Header
	tensors map[string]gguf.TensorInfo
}

// archs lists the supported architectures and their rotary layout.
var archs = map[string]bool{"llama": true, "qwen2": false, "qwen3": false}

// Open reads the header of the GGUF file at path and checks that this
// package can convert it.
func Open(path string) (*Model, error) {
	h, err := gguf.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &Model{Path: path, h: h, tensors: map[string]gguf.TensorInfo{}}
	for _, t := range h.Tensors {
		m.tensors[t.Name] = t
	}
	if err := m.params(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

func (m *Model) str(key string) (string, bool) {
	v, ok := m.h.Get(key)
	s, isStr := v.(string)
	return s, ok && isStr
}

// num returns a numeric metadata value as float64.
func (m *Model) num(key string) (float64, bool, error) {
	v, ok := m.h.Get(key)
	if !ok {
		return 0, false, nil
	}
	switch x := v.(type) {
	case uint8:
		return float64(x), true, nil
	case int8:
		return float64(x), true, nil
	case uint16:
		return float64(x), true, nil
	case int16:
		return float64(x), true, nil
	case uint32:
		return float64(x), true, nil
	case int32:
		return float64(x), true, nil
	case uint64:
		return float64(x), true, nil
	case int64:
		return float64(x), true, nil
	case float32:
		return float64(x), true, nil
	case float64:
		return x, true, nil
	}
	return 0, false, fmt.Errorf("metadata %s: not a number (%T)", key, v)
}

func (m *Model) need(key string) (int, error) {
	v, ok, err := m.num(key)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("metadata %s is missing", key)
	}
	if v <= 0 || v != math.Trunc(v) {
		return 0, fmt.Errorf("metadata %s: %v is not a positive integer", key, v)
	}
	return int(v), nil
}

func (m *Model) params() error {
	arch, ok := m.str("general.architecture")
	if !ok {
		return fmt.Errorf("metadata general.architecture is missing")
	}
	inter, known := archs[arch]
	if !known {
		return fmt.Errorf("architecture %q is not supported (llama, qwen2, qwen3)", arch)
	}
	m.Arch, m.Interleaved = arch, inter
	var err error
	for _, f := range []struct {
		dst *int
		key string
	}{
		{&m.Hidden, "embedding_length"}, {&m.Layers, "block_count"}, {&m.FFN, "feed_forward_length"},
		{&m.Heads, "attention.head_count"},
	} {
		if *f.dst, err = m.need(arch + "." + f.key); err != nil {
			return err
		}
	}
	m.KVHeads = m.Heads
	if _, ok, _ := m.num(arch + ".attention.head_count_kv"); ok {
		if m.KVHeads, err = m.need(arch + ".attention.head_count_kv"); err != nil {
			return err
		}
	}
	if m.Heads%m.KVHeads != 0 {
		return fmt.Errorf("metadata %s.attention.head_count %d is not a multiple of head_count_kv %d", arch, m.Heads, m.KVHeads)
	}
	m.HeadDim = m.Hidden / m.Heads
	if _, ok, _ := m.num(arch + ".attention.key_length"); ok {
		if m.HeadDim, err = m.need(arch + ".attention.key_length"); err != nil {
			return err
		}
	}
	if _, ok, _ := m.num(arch + ".attention.value_length"); ok {
		vl, err := m.need(arch + ".attention.value_length")
		if err != nil {
			return err
		}
		if vl != m.HeadDim {
			return fmt.Errorf("metadata %s.attention.value_length %d differs from key_length %d (not supported)", arch, vl, m.HeadDim)
		}
	}
	if m.HeadDim%2 != 0 {
		return fmt.Errorf("head dimension %d is odd", m.HeadDim)
	}
	if _, ok, _ := m.num(arch + ".rope.dimension_count"); ok {
		rd, err := m.need(arch + ".rope.dimension_count")
		if err != nil {
			return err
		}
		if rd != m.HeadDim {
			return fmt.Errorf("metadata %s.rope.dimension_count %d: partial rotary embedding (head dimension %d) is not supported", arch, rd, m.HeadDim)
		}
	}
	eps, ok, err := m.num(arch + ".attention.layer_norm_rms_epsilon")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("metadata %s.attention.layer_norm_rms_epsilon is missing", arch)
	}
	m.Eps = eps
	m.Theta = 10000 // llama.cpp's default freq_base
	if th, ok, err := m.num(arch + ".rope.freq_base"); err != nil {
		return err
	} else if ok {
		m.Theta = th
	}
	if st, ok := m.str(arch + ".rope.scaling.type"); ok && st != "none" {
		f, _, _ := m.num(arch + ".rope.scaling.factor")
		if !(st == "linear" && f == 1) {
			return fmt.Errorf("metadata %s.rope.scaling.type %q is not supported", arch, st)
		}
	}
	if f, ok, _ := m.num(arch + ".rope.freq_scale"); ok && f != 1 {
		return fmt.Errorf("metadata %s.rope.freq_scale %v is not supported", arch, f)
	}
	emb, ok := m.tensors["token_embd.weight"]
	if !ok {
		return fmt.Errorf("tensor token_embd.weight is missing")
	}
	if len(emb.Shape) != 2 || int(emb.Shape[0]) != m.Hidden {
		return fmt.Errorf("tensor token_embd.weight has shape %v, want [%d, vocab]", emb.Shape, m.Hidden)
	}
	m.Vocab = int(emb.Shape[1])
	_, hasOut := m.tensors["output.weight"]
	m.Tied = !hasOut
	_, m.QKNorm = m.tensors["blk.0.attn_q_norm.weight"]
	// Every tensor the graph needs, with its shape.
	for name, shape := range m.shapes() {
		t, ok := m.tensors[name+".weight"]
		if !ok {
			return fmt.Errorf("tensor %s.weight is missing", name)
		}
		if !sameShape(t.Shape, shape) {
			return fmt.Errorf("tensor %s.weight has shape %v, want %v", name, t.Shape, shape)
		}
		if _, err := t.Type.RowBytes(t.Shape[0]); err != nil {
			return fmt.Errorf("tensor %s.weight: %w (supported: F32, F16, BF16, Q8_0, Q4_0)", name, err)
		}
	}
	return nil
}

func sameShape(a []uint64, b []int) bool {
	for len(a) > len(b) && a[len(a)-1] == 1 {
		a = a[:len(a)-1]
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if int(a[i]) != b[i] {
			return false
		}
	}
	return true
}

// shapes gives the GGUF shape (ne0 first: [in, out] for a matrix) of every
// weight tensor the converter reads, by name without ".weight".
func (m *Model) shapes() map[string][]int {
	H, F, D := m.Hidden, m.FFN, m.HeadDim
	s := map[string][]int{"token_embd": {H, m.Vocab}, "output_norm": {H}}
	if !m.Tied {
		s["output"] = []int{H, m.Vocab}
	}
	for l := range m.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		s[p+"attn_norm"] = []int{H}
		s[p+"attn_q"] = []int{H, m.Heads * D}
		s[p+"attn_k"] = []int{H, m.KVHeads * D}
		s[p+"attn_v"] = []int{H, m.KVHeads * D}
		s[p+"attn_output"] = []int{m.Heads * D, H}
		s[p+"ffn_norm"] = []int{H}
		s[p+"ffn_gate"] = []int{H, F}
		s[p+"ffn_up"] = []int{H, F}
		s[p+"ffn_down"] = []int{F, H}
		if m.QKNorm {
			s[p+"attn_q_norm"] = []int{D}
			s[p+"attn_k_norm"] = []int{D}
		}
	}
	return s
}

// Tensor reads a tensor ("blk.0.attn_q.weight") dequantized to float32,
// row-major with the GGUF's ne0 as the fastest dimension ([out][in] for a
// matrix). ok is false when the file has no such tensor.
func (m *Model) Tensor(name string) (data []float32, ok bool, err error) {
	t, ok := m.tensors[name]
	if !ok {
		return nil, false, nil
	}
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	rows := n / t.Shape[0]
	rb, err := t.Type.RowBytes(t.Shape[0])
	if err != nil {
		return nil, true, fmt.Errorf("%s: tensor %s: %w", m.Path, name, err)
	}
	f, err := os.Open(m.Path)
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	raw := make([]byte, rb*rows)
	if _, err := f.ReadAt(raw, int64(m.h.DataOffset+t.Offset)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, true, fmt.Errorf("%s: tensor %s: %w", m.Path, name, err)
	}
	data, err = gguf.Decode(make([]float32, 0, n), t.Type, raw)
	if err != nil {
		return nil, true, fmt.Errorf("%s: tensor %s: %w", m.Path, name, err)
	}
	return data, true, nil
}

// TensorTypes counts the file's tensors by type, for the conversion report.
func (m *Model) TensorTypes() map[string]int {
	c := map[string]int{}
	for _, t := range m.h.Tensors {
		c[t.Type.String()]++
	}
	return c
}

// deinterleave reorders the rows of a Q or K projection ([heads*D][in])
// from adjacent rotary pairs (2i, 2i+1) to halves (i, i+D/2), within each
// head, so a "rotate half" rotary embedding computes what llama.cpp's
// interleaved one does (the attention scores are unchanged by one
// permutation applied to both Q and K).
func deinterleave(w []float32, heads, d, in int) []float32 {
	out := make([]float32, len(w))
	for h := range heads {
		for i := range d / 2 {
			src0 := (h*d + 2*i) * in
			src1 := (h*d + 2*i + 1) * in
			dst0 := (h*d + i) * in
			dst1 := (h*d + i + d/2) * in
			copy(out[dst0:dst0+in], w[src0:src0+in])
			copy(out[dst1:dst1+in], w[src1:src1+in])
		}
	}
	return out
}

func writeFloats(w io.Writer, v []float32) error {
	buf := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	_, err := w.Write(buf)
	return err
}
