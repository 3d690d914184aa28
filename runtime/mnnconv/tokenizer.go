package mnnconv

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/gguf"
)

// Vocab is the GGUF's tokenizer, as MNN's tokenizer.txt will hold it.
type Vocab struct {
	Model  string // tokenizer.ggml.model: "llama" (SentencePiece) or "gpt2" (byte-level BPE)
	Tokens []string
	Scores []float32
	Types  []int32
	Merges []string
	BOS    int // -1: none
	EOS    int
	EOT    int // -1: none
	AddBOS bool
	// Template is tokenizer.chat_template ("" when the file has none).
	Template string
}

// ReadVocab reads the tokenizer metadata.
func (m *Model) ReadVocab() (*Vocab, error) {
	v := &Vocab{BOS: -1, EOS: -1, EOT: -1}
	var ok bool
	if v.Model, ok = m.str("tokenizer.ggml.model"); !ok {
		return nil, fmt.Errorf("%s: metadata tokenizer.ggml.model is missing", m.Path)
	}
	if v.Model != "llama" && v.Model != "gpt2" {
		return nil, fmt.Errorf("%s: metadata tokenizer.ggml.model %q is not supported (llama, gpt2)", m.Path, v.Model)
	}
	raw, _ := m.h.Get("tokenizer.ggml.tokens")
	if v.Tokens, ok = raw.([]string); !ok {
		return nil, fmt.Errorf("%s: metadata tokenizer.ggml.tokens is missing or not a string array", m.Path)
	}
	if len(v.Tokens) != m.Vocab {
		return nil, fmt.Errorf("%s: metadata tokenizer.ggml.tokens has %d tokens, token_embd.weight %d rows", m.Path, len(v.Tokens), m.Vocab)
	}
	if raw, ok := m.h.Get("tokenizer.ggml.scores"); ok {
		if v.Scores, ok = raw.([]float32); !ok || len(v.Scores) != len(v.Tokens) {
			return nil, fmt.Errorf("%s: metadata tokenizer.ggml.scores is not %d float32 values", m.Path, len(v.Tokens))
		}
	}
	if raw, ok := m.h.Get("tokenizer.ggml.token_type"); ok {
		if v.Types, ok = raw.([]int32); !ok || len(v.Types) != len(v.Tokens) {
			return nil, fmt.Errorf("%s: metadata tokenizer.ggml.token_type is not %d int32 values", m.Path, len(v.Tokens))
		}
	}
	if raw, ok := m.h.Get("tokenizer.ggml.merges"); ok {
		if v.Merges, ok = raw.([]string); !ok {
			return nil, fmt.Errorf("%s: metadata tokenizer.ggml.merges is not a string array", m.Path)
		}
	}
	if v.Model == "gpt2" && len(v.Merges) == 0 {
		return nil, fmt.Errorf("%s: metadata tokenizer.ggml.merges is missing (a gpt2 tokenizer needs its merges)", m.Path)
	}
	id := func(key string) (int, error) {
		x, ok, err := m.num(key)
		if err != nil || !ok {
			return -1, err
		}
		if x < 0 || int(x) >= len(v.Tokens) {
			return -1, nil // llama.cpp writes 2^32-1 for "none"
		}
		return int(x), nil
	}
	var err error
	if v.BOS, err = id("tokenizer.ggml.bos_token_id"); err != nil {
		return nil, err
	}
	if v.EOS, err = id("tokenizer.ggml.eos_token_id"); err != nil {
		return nil, err
	}
	if v.EOT, err = id("tokenizer.ggml.eot_token_id"); err != nil {
		return nil, err
	}
	// llama.cpp's defaults: SentencePiece adds BOS, byte-level BPE does not.
	v.AddBOS = v.Model == "llama"
	if b, ok := m.h.Get("tokenizer.ggml.add_bos_token"); ok {
		if bb, isBool := b.(bool); isBool {
			v.AddBOS = bb
		}
	}
	if v.BOS < 0 {
		v.AddBOS = false
	}
	if sp, ok := m.h.Get("tokenizer.ggml.add_space_prefix"); ok && v.Model == "llama" {
		if b, isBool := sp.(bool); isBool && !b {
			return nil, fmt.Errorf("%s: metadata tokenizer.ggml.add_space_prefix is false: MNN's SentencePiece tokenizer always adds the space prefix", m.Path)
		}
	}
	v.Template, _ = m.str("tokenizer.chat_template")
	return v, nil
}

func (v *Vocab) typ(i int) int32 {
	if v.Types == nil || v.Types[i] == gguf.TokenUndefined {
		return gguf.TokenNormal
	}
	return v.Types[i]
}

// Specials are the ids MNN's tokenizer reads as one token when their text
// appears in the input (control and user-defined tokens), as llama.cpp
// does when it parses special tokens.
func (v *Vocab) Specials() []int {
	var ids []int
	for i := range v.Tokens {
		if t := v.typ(i); t == gguf.TokenControl || t == gguf.TokenUserDefined {
			ids = append(ids, i)
		}
	}
	return ids
}

// Stops are the end-of-generation ids: EOS, then EOT when it differs.
func (v *Vocab) Stops() []int {
	var ids []int
	if v.EOS >= 0 {
		ids = append(ids, v.EOS)
	}
	if v.EOT >= 0 && v.EOT != v.EOS {
		ids = append(ids, v.EOT)
	}
	return ids
}

// WriteTokenizer writes MNN's tokenizer.txt (magic 430, then the type:
// 0 SentencePiece for "llama" vocabularies, 3 Huggingface byte-level BPE
// for "gpt2" ones; the special, stop and prefix ids; the vocabulary in id
// order, so every id keeps its token). It returns notes on what MNN's
// tokenizer will render differently from llama.cpp.
func (v *Vocab) WriteTokenizer(w io.Writer) (notes []string, err error) {
	bw := bufio.NewWriter(w)
	kind := 0
	if v.Model == "gpt2" {
		kind = 3
	}
	fmt.Fprintf(bw, "430 %d\n", kind)
	sp, stop := v.Specials(), v.Stops()
	var prefix []int
	if v.AddBOS {
		prefix = []int{v.BOS}
	}
	fmt.Fprintf(bw, "%d %d %d\n", len(sp), len(stop), len(prefix))
	var all []string
	for _, l := range [][]int{sp, stop, prefix} {
		for _, id := range l {
			all = append(all, strconv.Itoa(id))
		}
	}
	fmt.Fprintln(bw, strings.Join(all, " "))
	switch kind {
	case 0:
		fmt.Fprintf(bw, "%d\n", len(v.Tokens))
		odd := 0
		for i, t := range v.Tokens {
			score := float32(0)
			if v.Scores != nil {
				score = v.Scores[i]
			}
			// MNN's Sentencepiece::decode turns only a leading ▁ into a space.
			if v.typ(i) == gguf.TokenNormal && (strings.Count(t, "▁") > 1 || strings.Index(t, "▁") > 0) {
				odd++
			}
			fmt.Fprintf(bw, "%s %s %d\n", base64.StdEncoding.EncodeToString([]byte(t)),
				strconv.FormatFloat(float64(score), 'g', -1, 32), v.typ(i))
		}
		if odd > 0 {
			notes = append(notes, fmt.Sprintf("%d tokens hold ▁ after their start or more than once; MNN's SentencePiece decoder turns only a leading ▁ into a space, so their text differs from llama.cpp's", odd))
		}
	case 3:
		fmt.Fprintf(bw, "%d %d\n", len(v.Tokens), len(v.Merges))
		for i, t := range v.Tokens {
			if strings.ContainsAny(t, "\r\n") {
				return nil, fmt.Errorf("token %d %q holds a line break, which MNN's tokenizer.txt cannot store", i, t)
			}
			fmt.Fprintln(bw, t)
		}
		for i, mg := range v.Merges {
			if strings.ContainsAny(mg, "\r\n") || strings.Count(mg, " ") != 1 {
				return nil, fmt.Errorf("merge %d %q is not two pieces separated by one space", i, mg)
			}
			fmt.Fprintln(bw, mg)
		}
		notes = append(notes, "MNN's byte-level BPE pre-tokenizes with an ASCII regular expression (std::regex), so text outside ASCII letters and digits may split differently from llama.cpp's")
	}
	return notes, bw.Flush()
}
