package mnnconv

import (
	"fmt"
	"math"
	"strings"

	"github.com/pocketeval/pocketeval/internal/gguf"
)

// Reference is a plain float32 forward pass of a GGUF decoder written from
// llama.cpp's graph (llm_build_llama / llm_build_qwen2 / llm_build_qwen3):
// RMSNorm with the file's epsilon, rotary embedding on adjacent pairs
// (llama) or halves (qwen2, qwen3) with the file's base, grouped-query
// attention, SwiGLU, q/k norms and biases where present, tied or untied
// output. Dot products accumulate in float64. It reads the file's tensors,
// not the converted package, so it checks the converter and MNN together.
type Reference struct {
	m *Model
	// HalfKV rounds keys and values to float16 as they enter the cache, as
	// llama.cpp's default KV cache type (f16) stores them.
	HalfKV bool
	w      map[string][]float32
}

// NewReference loads every tensor of m.
func NewReference(m *Model) (*Reference, error) {
	r := &Reference{m: m, w: map[string][]float32{}}
	for name := range m.tensors {
		data, _, err := m.Tensor(name)
		if err != nil {
			return nil, err
		}
		r.w[name] = data
	}
	if m.Tied {
		r.w["output.weight"] = r.w["token_embd.weight"]
	}
	return r, nil
}

// matvec: y[o] = sum_i w[o*in+i]*x[i] (+ b[o]).
func matvec(w, x, b []float32, out int) []float32 {
	in := len(x)
	y := make([]float32, out)
	for o := range out {
		row := w[o*in : (o+1)*in]
		var s float64
		for i, v := range row {
			s += float64(v) * float64(x[i])
		}
		if b != nil {
			s += float64(b[o])
		}
		y[o] = float32(s)
	}
	return y
}

func rmsnorm(x, g []float32, eps float64) []float32 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	scale := float32(1 / math.Sqrt(s/float64(len(x))+eps))
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = v * scale * g[i]
	}
	return y
}

// rope rotates one head's vector at position pos in place.
func (r *Reference) rope(v []float32, pos int) {
	d := len(v)
	for i := range d / 2 {
		theta := float64(pos) * math.Pow(r.m.Theta, -2*float64(i)/float64(d))
		c, s := float32(math.Cos(theta)), float32(math.Sin(theta))
		a, b := 2*i, 2*i+1 // llama: adjacent pairs
		if !r.m.Interleaved {
			a, b = i, i+d/2 // NeoX: halves
		}
		x0, x1 := v[a], v[b]
		v[a] = x0*c - x1*s
		v[b] = x0*s + x1*c
	}
}

// Logits runs tokens from an empty cache and returns the logits of every
// position.
func (r *Reference) Logits(tokens []int) ([][]float32, error) {
	s := r.NewSession()
	var out [][]float32
	for _, t := range tokens {
		l, err := s.Step(t)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// Session is one sequence's KV cache.
type Session struct {
	r          *Reference
	keys, vals [][][]float32 // [layer][pos] = KVHeads*HeadDim
}

// NewSession starts a sequence from an empty cache.
func (r *Reference) NewSession() *Session {
	return &Session{r: r, keys: make([][][]float32, r.m.Layers), vals: make([][][]float32, r.m.Layers)}
}

// Step appends one token and returns the next-token logits.
func (s *Session) Step(t int) ([]float32, error) {
	r, m := s.r, s.r.m
	H, D, NH, NKV := m.Hidden, m.HeadDim, m.Heads, m.KVHeads
	keys, vals := s.keys, s.vals
	emb := r.w["token_embd.weight"]
	pos := len(keys[0])
	{
		if t < 0 || t >= m.Vocab {
			return nil, fmt.Errorf("token %d at position %d is outside the vocabulary of %d", t, pos, m.Vocab)
		}
		x := append([]float32(nil), emb[t*H:(t+1)*H]...)
		for l := range m.Layers {
			p := fmt.Sprintf("blk.%d.", l)
			n := rmsnorm(x, r.w[p+"attn_norm.weight"], m.Eps)
			q := matvec(r.w[p+"attn_q.weight"], n, r.w[p+"attn_q.bias"], NH*D)
			k := matvec(r.w[p+"attn_k.weight"], n, r.w[p+"attn_k.bias"], NKV*D)
			v := matvec(r.w[p+"attn_v.weight"], n, r.w[p+"attn_v.bias"], NKV*D)
			for h := range NH {
				if m.QKNorm {
					copy(q[h*D:(h+1)*D], rmsnorm(q[h*D:(h+1)*D], r.w[p+"attn_q_norm.weight"], m.Eps))
				}
				r.rope(q[h*D:(h+1)*D], pos)
			}
			for h := range NKV {
				if m.QKNorm {
					copy(k[h*D:(h+1)*D], rmsnorm(k[h*D:(h+1)*D], r.w[p+"attn_k_norm.weight"], m.Eps))
				}
				r.rope(k[h*D:(h+1)*D], pos)
			}
			if r.HalfKV {
				for i := range k {
					k[i] = gguf.FP32(gguf.FP16(k[i]))
				}
				for i := range v {
					v[i] = gguf.FP32(gguf.FP16(v[i]))
				}
			}
			keys[l] = append(keys[l], k)
			vals[l] = append(vals[l], v)
			attn := make([]float32, NH*D)
			scale := 1 / math.Sqrt(float64(D))
			for h := range NH {
				kh := h / (NH / NKV)
				qh := q[h*D : (h+1)*D]
				scores := make([]float64, pos+1)
				mx := math.Inf(-1)
				for j := 0; j <= pos; j++ {
					kj := keys[l][j][kh*D : (kh+1)*D]
					var s float64
					for i := range D {
						s += float64(qh[i]) * float64(kj[i])
					}
					scores[j] = s * scale
					mx = math.Max(mx, scores[j])
				}
				var sum float64
				for j := range scores {
					scores[j] = math.Exp(scores[j] - mx)
					sum += scores[j]
				}
				for i := range D {
					var a float64
					for j := range scores {
						a += scores[j] / sum * float64(vals[l][j][kh*D+i])
					}
					attn[h*D+i] = float32(a)
				}
			}
			o := matvec(r.w[p+"attn_output.weight"], attn, nil, H)
			for i := range x {
				x[i] += o[i]
			}
			n2 := rmsnorm(x, r.w[p+"ffn_norm.weight"], m.Eps)
			g := matvec(r.w[p+"ffn_gate.weight"], n2, nil, m.FFN)
			u := matvec(r.w[p+"ffn_up.weight"], n2, nil, m.FFN)
			for i := range g {
				g[i] = float32(float64(g[i])/(1+math.Exp(-float64(g[i])))) * u[i]
			}
			d := matvec(r.w[p+"ffn_down.weight"], g, nil, H)
			for i := range x {
				x[i] += d[i]
			}
		}
		h := rmsnorm(x, r.w["output_norm.weight"], m.Eps)
		return matvec(r.w["output.weight"], h, nil, m.Vocab), nil
	}
}

// Quantize rounds the weights of every linear layer as mnnconvert stores
// them at bits 8 or 4: symmetric, one scale per block of inputs (the
// largest magnitude over 2^(bits-1)-1), or asym, a minimum and a scale a
// block ((max-min)/(2^bits-1)), so the reference computes what a quantized
// package should.
func (r *Reference) Quantize(bits, block int, asym bool) {
	clip := float64(int(1)<<(bits-1) - 1)
	for name, w := range r.w {
		in, ok := r.linearInputs(name)
		if !ok {
			continue
		}
		blk := block
		if blk <= 0 {
			blk = in
		}
		for in%blk != 0 {
			blk /= 2
		}
		q := make([]float32, len(w))
		for b := 0; b < len(w); b += blk {
			if asym {
				lo, hi := w[b], w[b]
				for _, x := range w[b : b+blk] {
					lo, hi = min(lo, x), max(hi, x)
				}
				scale := (hi - lo) / float32(int(1)<<bits-1)
				for i, x := range w[b : b+blk] {
					u := 0.0
					if scale > 0 {
						u = math.RoundToEven(float64((x - lo) / scale))
					}
					u = math.Max(0, math.Min(float64(int(1)<<bits-1), u))
					q[b+i] = lo + scale*float32(u)
				}
				continue
			}
			var amax float64
			for _, x := range w[b : b+blk] {
				amax = math.Max(amax, math.Abs(float64(x)))
			}
			scale := float32(float32(amax) / float32(clip))
			for i, x := range w[b : b+blk] {
				v := 0.0
				if scale > 0 {
					v = math.RoundToEven(float64(x / scale))
				}
				q[b+i] = float32(math.Max(-clip, math.Min(clip, v))) * scale
			}
		}
		r.w[name] = q
	}
}

// linearInputs gives a linear layer's input size by tensor name.
func (r *Reference) linearInputs(name string) (int, bool) {
	m := r.m
	switch {
	case name == "output.weight":
		return m.Hidden, true
	case strings.HasSuffix(name, ".attn_q.weight"), strings.HasSuffix(name, ".attn_k.weight"),
		strings.HasSuffix(name, ".attn_v.weight"), strings.HasSuffix(name, ".ffn_gate.weight"),
		strings.HasSuffix(name, ".ffn_up.weight"):
		return m.Hidden, true
	case strings.HasSuffix(name, ".attn_output.weight"):
		return m.Heads * m.HeadDim, true
	case strings.HasSuffix(name, ".ffn_down.weight"):
		return m.FFN, true
	}
	return 0, false
}
