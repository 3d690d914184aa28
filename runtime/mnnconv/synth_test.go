package mnnconv

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/randmodel"
)

// synth describes a small random decoder written as GGUF for the tests:
// the features the converter must carry (q/k norms, biases, untied
// output, GQA) and the tensor types it must dequantize.
type synth struct {
	name   string
	arch   string
	vocab  int
	hidden int
	layers int
	heads  int
	kv     int
	ffn    int
	qkNorm bool
	bias   bool
	tied   bool
	eps    float64
	theta  float64
	// types by tensor kind: "attn" (q, k, v, output), "ffn", "embd",
	// "output"; F32 when absent.
	types map[string]gguf.TensorType
}

var synths = []synth{
	{name: "qwen3-qknorm-tied-bf16", arch: "qwen3", vocab: 300, hidden: 64, layers: 2, heads: 4, kv: 2, ffn: 96,
		qkNorm: true, tied: true, eps: 1e-6, theta: 1e6,
		types: map[string]gguf.TensorType{"attn": gguf.BF16, "ffn": gguf.BF16, "embd": gguf.BF16}},
	{name: "qwen2-bias-untied-f16-q8", arch: "qwen2", vocab: 300, hidden: 64, layers: 2, heads: 4, kv: 1, ffn: 128,
		bias: true, eps: 1e-5, theta: 10000,
		types: map[string]gguf.TensorType{"attn": gguf.F16, "ffn": gguf.Q8_0, "embd": gguf.F16, "output": gguf.Q8_0}},
	{name: "llama-gqa-q8", arch: "llama", vocab: 300, hidden: 64, layers: 2, heads: 8, kv: 2, ffn: 96,
		eps: 1e-5, theta: 500000,
		types: map[string]gguf.TensorType{"attn": gguf.Q8_0, "ffn": gguf.F32, "output": gguf.BF16}},
}

// write writes the model to dir and returns its path.
func (s synth) write(t testing.TB, dir string) string {
	t.Helper()
	var v *randmodel.Vocab
	var err error
	if v, err = randmodel.SyntheticBPE(s.vocab); err != nil {
		t.Fatal(err)
	}
	if s.arch == "llama" {
		// A SentencePiece vocabulary: <unk>, <s>, </s>, the 256 byte
		// tokens, then pieces.
		v = spmVocab(s.vocab)
	}
	hd := s.hidden / s.heads
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: s.arch},
		{Key: "general.name", Value: s.name},
		{Key: s.arch + ".context_length", Value: uint32(512)},
		{Key: s.arch + ".embedding_length", Value: uint32(s.hidden)},
		{Key: s.arch + ".block_count", Value: uint32(s.layers)},
		{Key: s.arch + ".feed_forward_length", Value: uint32(s.ffn)},
		{Key: s.arch + ".attention.head_count", Value: uint32(s.heads)},
		{Key: s.arch + ".attention.head_count_kv", Value: uint32(s.kv)},
		{Key: s.arch + ".rope.freq_base", Value: float32(s.theta)},
		{Key: s.arch + ".attention.layer_norm_rms_epsilon", Value: float32(s.eps)},
	}
	if s.arch == "qwen3" {
		kvs = append(kvs, gguf.KV{Key: s.arch + ".attention.key_length", Value: uint32(hd)},
			gguf.KV{Key: s.arch + ".attention.value_length", Value: uint32(hd)})
	}
	kvs = append(kvs, v.KVs()...)
	rng := rand.New(rand.NewPCG(uint64(len(s.name)), 7))
	var tensors []gguf.Tensor
	add := func(name, kind string, stdv, mean float64, shape ...uint64) {
		typ, ok := s.types[kind]
		if !ok || len(shape) == 1 {
			typ = gguf.F32
		}
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(mean + stdv*rng.NormFloat64())
		}
		tensors = append(tensors, gguf.Tensor{Name: name, Shape: shape, Type: typ, WriteData: func(w io.Writer) error {
			b, err := gguf.Encode(nil, typ, data)
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}})
	}
	H, F, V := uint64(s.hidden), uint64(s.ffn), uint64(s.vocab)
	add("token_embd.weight", "embd", 1, 0, H, V)
	add("output_norm.weight", "", 0.1, 1, H)
	if !s.tied {
		add("output.weight", "output", 1/math.Sqrt(float64(H)), 0, H, V)
	}
	q, k := uint64(s.heads*hd), uint64(s.kv*hd)
	for l := range s.layers {
		p := "blk." + strconv.Itoa(l) + "."
		add(p+"attn_norm.weight", "", 0.1, 1, H)
		add(p+"attn_q.weight", "attn", 1/math.Sqrt(float64(H)), 0, H, q)
		add(p+"attn_k.weight", "attn", 1/math.Sqrt(float64(H)), 0, H, k)
		add(p+"attn_v.weight", "attn", 1/math.Sqrt(float64(H)), 0, H, k)
		if s.bias {
			add(p+"attn_q.bias", "", 0.2, 0, q)
			add(p+"attn_k.bias", "", 0.2, 0, k)
			add(p+"attn_v.bias", "", 0.2, 0, k)
		}
		if s.qkNorm {
			add(p+"attn_q_norm.weight", "", 0.1, 1, uint64(hd))
			add(p+"attn_k_norm.weight", "", 0.1, 1, uint64(hd))
		}
		add(p+"attn_output.weight", "attn", 1/math.Sqrt(float64(q)), 0, q, H)
		add(p+"ffn_norm.weight", "", 0.1, 1, H)
		add(p+"ffn_gate.weight", "ffn", 1/math.Sqrt(float64(H)), 0, H, F)
		add(p+"ffn_up.weight", "ffn", 1/math.Sqrt(float64(H)), 0, H, F)
		add(p+"ffn_down.weight", "ffn", 1/math.Sqrt(float64(F)), 0, F, H)
	}
	path := filepath.Join(dir, s.name+".gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	if err := gguf.Write(bw, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// spmVocab is a SentencePiece vocabulary of n tokens in llama's layout.
func spmVocab(n int) *randmodel.Vocab {
	v := &randmodel.Vocab{Model: "llama", BOS: 1, EOS: 2, PAD: -1, AddBOS: true}
	v.Tokens = []string{"<unk>", "<s>", "</s>"}
	v.Types = []int32{gguf.TokenUnknown, gguf.TokenControl, gguf.TokenControl}
	for b := range 256 {
		v.Tokens = append(v.Tokens, "<0x"+strings.ToUpper(hex2(b))+">")
		v.Types = append(v.Types, gguf.TokenByte)
	}
	letters := "etaoinshrdlucmfwypvbgkjqxz"
	for i := 0; len(v.Tokens) < n; i++ {
		var p string
		if i < len(letters) {
			p = "▁" + string(letters[i])
		} else {
			j := i - len(letters)
			p = string(letters[j%len(letters)]) + string(letters[(j/len(letters))%len(letters)])
		}
		v.Tokens = append(v.Tokens, p)
		v.Types = append(v.Types, gguf.TokenNormal)
	}
	return v
}

func hex2(b int) string {
	const h = "0123456789abcdef"
	return string([]byte{h[b>>4], h[b&15]})
}
