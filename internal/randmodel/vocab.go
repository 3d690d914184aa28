package randmodel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/gguf"
)

// Vocab is a tokenizer as llama.cpp reads it from tokenizer.* metadata.
type Vocab struct {
	Model  string // tokenizer.ggml.model: "gpt2" (byte-level BPE)
	Pre    string // tokenizer.ggml.pre: the pre-tokeniser ("qwen2")
	Tokens []string
	Types  []int32  // one of the gguf.Token* types per token
	Merges []string // BPE merges, "left right", highest priority first
	BOS    int      // -1: none
	EOS    int
	PAD    int // -1: none
	AddBOS bool
	// ChatTemplate is tokenizer.chat_template (Jinja source); empty for
	// none.
	ChatTemplate string
}

// Qwen3Specials are Qwen3's added tokens in id order (151643 onwards in
// Qwen3; 65510 onwards in MNN-Pocket-0.3B's cut of the same tokenizer, whose
// PAD 65510 and EOS 65512 are <|endoftext|> and <|im_end|>). The tool-call
// and think tags are ordinary added text (user-defined), the rest control
// tokens, as in Qwen3's GGUF exports.
var Qwen3Specials = []string{
	"<|endoftext|>", "<|im_start|>", "<|im_end|>",
	"<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>",
	"<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
	"<|vision_pad|>", "<|image_pad|>", "<|video_pad|>",
	"<tool_call>", "</tool_call>",
	"<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
	"<|repo_name|>", "<|file_sep|>",
	"<tool_response>", "</tool_response>", "<think>", "</think>",
}

// ChatMLTemplate is a minimal ChatML chat template; llama.cpp recognises it
// as its built-in "chatml".
const ChatMLTemplate = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"

func specialType(s string) int32 {
	switch s {
	case "<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>":
		return gguf.TokenUserDefined
	}
	return gguf.TokenControl
}

// appendQwen3Specials adds Qwen3's special tokens and sets PAD, EOS, no BOS
// and the ChatML template, as MNN-Pocket-0.3B's tokenizer has them.
func (v *Vocab) appendQwen3Specials() {
	first := len(v.Tokens)
	for _, s := range Qwen3Specials {
		v.Tokens = append(v.Tokens, s)
		v.Types = append(v.Types, specialType(s))
	}
	v.PAD, v.EOS, v.BOS, v.AddBOS = first, first+2, -1, false
	v.ChatTemplate = ChatMLTemplate
}

// byteRunes is GPT-2's bytes_to_unicode: the rune each byte is written as
// in a byte-level BPE vocabulary (printable Latin-1 bytes as themselves,
// the others shifted to U+0100 onwards).
var byteRunes = func() [256]rune {
	var m [256]rune
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}()

// byteOrder ranks bytes for SyntheticBPE's merges: space, lowercase
// letters by English frequency, uppercase, digits, punctuation and newline,
// then every other byte.
var byteOrder = func() []byte {
	seen := [256]bool{}
	var order []byte
	for _, b := range []byte(" etaoinshrdlcumwfgypbvkjxqzETAOINSHRDLCUMWFGYPBVKJXQZ0123456789.,:;?!'\"()-\n") {
		if !seen[b] {
			seen[b], order = true, append(order, b)
		}
	}
	for b := range 256 {
		if !seen[b] {
			order = append(order, byte(b))
		}
	}
	return order
}()

// SyntheticBPE returns a byte-level BPE vocabulary ("gpt2" model with the
// qwen2 pre-tokeniser) of exactly n tokens: the 256 byte tokens, then
// merges of two bytes into two-byte tokens (pairs of frequent bytes first,
// up to 65,280 of them) to fill the vocabulary, then Qwen3's special tokens
// with ChatML. It needs no training text, tokenises any input, and makes
// text about two bytes per token — denser than a trained tokenizer, which
// matters only for prompt-length measurements (use CutVocab with a real
// vocabulary for those).
func SyntheticBPE(n int) (*Vocab, error) {
	nMerges := n - 256 - len(Qwen3Specials)
	if nMerges < 0 || nMerges > 256*256 {
		return nil, fmt.Errorf("synthetic vocabulary: %d tokens is outside [%d, %d]", n, 256+len(Qwen3Specials), 256+256*256+len(Qwen3Specials))
	}
	v := &Vocab{Model: "gpt2", Pre: "qwen2"}
	for b := range 256 {
		v.Tokens = append(v.Tokens, string(byteRunes[b]))
		v.Types = append(v.Types, gguf.TokenNormal)
	}
	// Pairs (a, b) in order of max(rank a, rank b), then rank a, then rank
	// b: frequent bytes pair up first.
	for hi := 0; hi < 256 && len(v.Merges) < nMerges; hi++ {
		for lo := 0; lo <= hi && len(v.Merges) < nMerges; lo++ {
			pairs := [][2]int{{lo, hi}, {hi, lo}}
			if lo == hi {
				pairs = pairs[:1]
			}
			for _, p := range pairs {
				if len(v.Merges) == nMerges {
					break
				}
				a, b := string(byteRunes[byteOrder[p[0]]]), string(byteRunes[byteOrder[p[1]]])
				v.Merges = append(v.Merges, a+" "+b)
				v.Tokens = append(v.Tokens, a+b)
				v.Types = append(v.Types, gguf.TokenNormal)
			}
		}
	}
	v.appendQwen3Specials()
	return v, nil
}

// CutVocab cuts a byte-level BPE vocabulary (read from a GGUF file such as
// llama.cpp's models/ggml-vocab-qwen2.gguf) to n tokens the way
// MNN-Pocket-0.3B cut Qwen3's: the first n-26 ordinary tokens, the merges
// among them, then Qwen3's 26 special tokens (so PAD is n-26 and EOS n-24,
// 65510 and 65512 for n = 65,536).
func CutVocab(h *gguf.Header, n int) (*Vocab, error) {
	model, _ := h.Get("tokenizer.ggml.model")
	if model != "gpt2" {
		return nil, fmt.Errorf("cut vocabulary: tokenizer.ggml.model is %v, want gpt2 (byte-level BPE)", model)
	}
	pre, _ := h.Get("tokenizer.ggml.pre")
	tokens, ok1 := getAs[[]string](h, "tokenizer.ggml.tokens")
	types, ok2 := getAs[[]int32](h, "tokenizer.ggml.token_type")
	merges, ok3 := getAs[[]string](h, "tokenizer.ggml.merges")
	if !ok1 || !ok2 || !ok3 || len(types) != len(tokens) {
		return nil, errors.New("cut vocabulary: tokenizer.ggml.tokens, token_type or merges missing or inconsistent")
	}
	keep := n - len(Qwen3Specials)
	if keep < 256 {
		return nil, fmt.Errorf("cut vocabulary: %d tokens leave no room for the 256 byte tokens", n)
	}
	if keep > len(tokens) {
		return nil, fmt.Errorf("cut vocabulary: the source has %d tokens, fewer than %d", len(tokens), keep)
	}
	v := &Vocab{Model: "gpt2", Pre: fmt.Sprint(pre)}
	kept := make(map[string]bool, keep)
	for i := range keep {
		if types[i] != gguf.TokenNormal {
			return nil, fmt.Errorf("cut vocabulary: token %d (%q) has type %d; only ordinary tokens may precede the special tokens", i, tokens[i], types[i])
		}
		v.Tokens = append(v.Tokens, tokens[i])
		v.Types = append(v.Types, gguf.TokenNormal)
		kept[tokens[i]] = true
	}
	for _, m := range merges {
		a, b, ok := strings.Cut(m, " ")
		if ok && kept[a] && kept[b] && kept[a+b] {
			v.Merges = append(v.Merges, m)
		}
	}
	v.appendQwen3Specials()
	return v, nil
}

func getAs[T any](h *gguf.Header, key string) (T, bool) {
	v, ok := h.Get(key)
	if !ok {
		var zero T
		return zero, false
	}
	t, ok := v.(T)
	return t, ok
}

// kvs returns the tokenizer metadata.
func (v *Vocab) kvs() []gguf.KV {
	kvs := []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: v.Model},
		{Key: "tokenizer.ggml.pre", Value: v.Pre},
		{Key: "tokenizer.ggml.tokens", Value: v.Tokens},
		{Key: "tokenizer.ggml.token_type", Value: v.Types},
	}
	if v.Merges != nil {
		kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml.merges", Value: v.Merges})
	}
	if v.BOS >= 0 {
		kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml.bos_token_id", Value: uint32(v.BOS)})
	}
	kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml.eos_token_id", Value: uint32(v.EOS)})
	if v.PAD >= 0 {
		kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml.padding_token_id", Value: uint32(v.PAD)})
	}
	kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml.add_bos_token", Value: v.AddBOS})
	if v.ChatTemplate != "" {
		kvs = append(kvs, gguf.KV{Key: "tokenizer.chat_template", Value: v.ChatTemplate})
	}
	return kvs
}

// KVs returns the tokenizer metadata, for writers of other GGUF files.
func (v *Vocab) KVs() []gguf.KV { return v.kvs() }
