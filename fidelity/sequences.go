package fidelity

import (
	"errors"
	"fmt"

	"github.com/pocketeval/pocketeval/runtime"
)

// Sequence is one token sequence the two models read: the logits at
// positions From .. len(Tokens)-2 are compared (each predicts the token
// after it).
type Sequence struct {
	Tokens []int32
	From   int
}

// scored is the number of positions compared.
func (s Sequence) scored() int { return max(0, len(s.Tokens)-1-s.From) }

// CorpusSequences cuts text into llama-perplexity's chunks: the text
// tokenized once (with BOS when the vocabulary adds it), split into
// consecutive chunks of nCtx tokens, at most maxChunks of them (0: all),
// the tail dropped; each chunk's first token is replaced by BOS when the
// vocabulary adds one, and its positions from nCtx/2 on are scored. The
// text must give at least two chunks, as llama-perplexity requires.
func CorpusSequences(tk Tokenizer, text string, nCtx, maxChunks int) ([]Sequence, error) {
	if nCtx < 4 {
		return nil, fmt.Errorf("context of %d tokens: at least 4 are needed", nCtx)
	}
	toks, err := tk.Tokenize(text, true)
	if err != nil {
		return nil, err
	}
	if len(toks) < 2*nCtx {
		return nil, fmt.Errorf("the text tokenizes to %d tokens; a context of %d needs at least %d", len(toks), nCtx, 2*nCtx)
	}
	n := len(toks) / nCtx
	if maxChunks > 0 {
		n = min(n, maxChunks)
	}
	v := tk.Vocab()
	seqs := make([]Sequence, n)
	for i := range seqs {
		c := append([]int32(nil), toks[i*nCtx:(i+1)*nCtx]...)
		if v.AddBOS && v.BOS >= 0 {
			c[0] = v.BOS
		}
		seqs[i] = Sequence{Tokens: c, From: nCtx / 2}
	}
	return seqs, nil
}

// PromptSequences makes one sequence of each prompt, tokenized with BOS
// when the vocabulary adds it and scored from its first position; a
// prompt longer than nCtx tokens keeps its first nCtx. Prompts of fewer
// than two tokens have nothing to compare and are skipped; skipped counts
// them.
func PromptSequences(tk Tokenizer, prompts []string, nCtx int) (seqs []Sequence, skipped int, err error) {
	if nCtx < 2 {
		return nil, 0, fmt.Errorf("context of %d tokens: at least 2 are needed", nCtx)
	}
	for i, p := range prompts {
		toks, err := tk.Tokenize(p, true)
		if err != nil {
			return nil, 0, fmt.Errorf("prompt %d: %w", i+1, err)
		}
		if len(toks) < 2 {
			skipped++
			continue
		}
		if len(toks) > nCtx {
			toks = toks[:nCtx]
		}
		seqs = append(seqs, Sequence{Tokens: toks, From: 0})
	}
	if len(seqs) == 0 {
		return nil, skipped, errors.New("no prompt has two tokens to compare")
	}
	return seqs, skipped, nil
}

// Tokenizer is the part of runtime.Logitser that makes sequences.
type Tokenizer interface {
	Vocab() runtime.VocabInfo
	Tokenize(text string, addSpecial bool) ([]int32, error)
}
