package randmodel

import (
	"bytes"
	"crypto/sha256"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/gguf"
)

func writeTiny(t *testing.T, typ gguf.TensorType, seed uint64) []byte {
	t.Helper()
	v, err := SyntheticBPE(Shapes["tiny"].Vocab)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, Shapes["tiny"], Options{Name: "tiny", Type: typ, Vocab: v, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteLayout(t *testing.T) {
	s := Shapes["tiny"]
	for _, typ := range []gguf.TensorType{gguf.F32, gguf.F16, gguf.Q8_0, gguf.Q4_0} {
		data := writeTiny(t, typ, 1)
		h, err := gguf.Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 + 11*s.Layers + 1; len(h.Tensors) != want {
			t.Errorf("%s: %d tensors, want %d", typ, len(h.Tensors), want)
		}
		var params, size uint64
		for _, ti := range h.Tensors {
			n := uint64(1)
			for _, d := range ti.Shape {
				n *= d
			}
			params += n
			wantType := typ
			if strings.HasSuffix(ti.Name, "norm.weight") {
				wantType = gguf.F32
			}
			if ti.Type != wantType {
				t.Errorf("%s: tensor %s is %s, want %s", typ, ti.Name, ti.Type, wantType)
			}
			rb, _ := ti.Type.RowBytes(ti.Shape[0])
			size = max(size, ti.Offset+rb*n/ti.Shape[0])
		}
		if int64(params) != s.Params() {
			t.Errorf("%s: %d parameters, Params() says %d", typ, params, s.Params())
		}
		if uint64(len(data)) < h.DataOffset+size {
			t.Errorf("%s: file of %d bytes is shorter than its tensors' extent %d", typ, len(data), h.DataOffset+size)
		}
		if v, _ := h.Get("qwen3.attention.head_count_kv"); v != uint32(s.KVHeads) {
			t.Errorf("%s: head_count_kv %v", typ, v)
		}
		if _, ok := h.Get("output.weight"); ok {
			t.Errorf("%s: tied model has output.weight", typ)
		}
	}
}

func TestWriteDeterministic(t *testing.T) {
	a, b, c := writeTiny(t, gguf.Q4_0, 1), writeTiny(t, gguf.Q4_0, 1), writeTiny(t, gguf.Q4_0, 2)
	if sha256.Sum256(a) != sha256.Sum256(b) {
		t.Error("the same seed gave different files")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same file")
	}
}

func TestWriteRejects(t *testing.T) {
	v, _ := SyntheticBPE(512)
	bad := Shapes["tiny"]
	bad.Hidden = 48 // not a multiple of 32
	if err := Write(&bytes.Buffer{}, bad, Options{Type: gguf.Q8_0, Vocab: v}); err == nil || !strings.Contains(err.Error(), "multiple of 32") {
		t.Errorf("hidden 48 in Q8_0: %v", err)
	}
	bad = Shapes["tiny"]
	bad.KVHeads = 3
	if err := Write(&bytes.Buffer{}, bad, Options{Type: gguf.F32, Vocab: v}); err == nil {
		t.Error("4 heads over 3 KV heads: no error")
	}
	small, _ := SyntheticBPE(300)
	if err := Write(&bytes.Buffer{}, Shapes["tiny"], Options{Type: gguf.F32, Vocab: small}); err == nil {
		t.Error("a 300-token tokenizer for a 512-token model: no error")
	}
}

func TestSyntheticBPE(t *testing.T) {
	for _, n := range []int{282, 512, 65536} {
		v, err := SyntheticBPE(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Tokens) != n || len(v.Types) != n {
			t.Fatalf("%d: got %d tokens, %d types", n, len(v.Tokens), len(v.Types))
		}
		seen := map[string]bool{}
		for _, tok := range v.Tokens {
			if seen[tok] {
				t.Fatalf("%d: token %q twice", n, tok)
			}
			seen[tok] = true
		}
		for _, m := range v.Merges {
			a, b, _ := strings.Cut(m, " ")
			if !seen[a] || !seen[b] || !seen[a+b] {
				t.Fatalf("%d: merge %q refers to a missing token", n, m)
			}
		}
		if v.Tokens[v.EOS] != "<|im_end|>" || v.Tokens[v.PAD] != "<|endoftext|>" || v.BOS != -1 {
			t.Errorf("%d: EOS %d %q, PAD %d %q, BOS %d", n, v.EOS, v.Tokens[v.EOS], v.PAD, v.Tokens[v.PAD], v.BOS)
		}
	}
	if v, _ := SyntheticBPE(65536); v.EOS != 65512 || v.PAD != 65510 {
		t.Errorf("65,536 tokens: EOS %d, PAD %d; MNN-Pocket-0.3B has 65512 and 65510", v.EOS, v.PAD)
	}
	if _, err := SyntheticBPE(281); err == nil {
		t.Error("281 tokens (no room for the byte and special tokens): no error")
	}
}

func TestCutVocab(t *testing.T) {
	src, _ := SyntheticBPE(1000)
	var buf bytes.Buffer
	if err := gguf.Write(&buf, src.kvs(), nil); err != nil {
		t.Fatal(err)
	}
	h, err := gguf.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	v, err := CutVocab(h, 400)
	if err != nil {
		t.Fatal(err)
	}
	keep := 400 - len(Qwen3Specials)
	if len(v.Tokens) != 400 || v.Tokens[keep] != "<|endoftext|>" || v.EOS != keep+2 {
		t.Fatalf("cut to 400: %d tokens, token %d %q, EOS %d", len(v.Tokens), keep, v.Tokens[keep], v.EOS)
	}
	if want := keep - 256; len(v.Merges) != want {
		t.Errorf("cut to 400: %d merges, want %d (those making the kept tokens)", len(v.Merges), want)
	}
	// Cutting to the full size keeps everything but the source's own
	// special tokens, which the Qwen3 set replaces.
	if v, err := CutVocab(h, 1000); err != nil || !slices.Equal(v.Tokens, src.Tokens) {
		t.Errorf("cut to the full size: %v, tokens equal %v", err, err == nil && slices.Equal(v.Tokens, src.Tokens))
	}
	if _, err := CutVocab(h, 5000); err == nil {
		t.Error("cut to more tokens than the source has: no error")
	}
	// A special token among the kept ones is refused.
	types, _ := getAs[[]int32](h, "tokenizer.ggml.token_type")
	types[300] = gguf.TokenControl
	if _, err := CutVocab(h, 400); err == nil || !strings.Contains(err.Error(), "only ordinary tokens") {
		t.Errorf("cut across a control token: %v", err)
	}
}
