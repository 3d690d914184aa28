package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// Logitser is implemented by runtimes that expose the model's raw
// next-token logits over a token sequence they are given (llama.cpp in
// process, MNN). Token-level comparisons of two precisions of one model
// (KL divergence, top-1 agreement, perplexity) and first-token decisions
// use it; both sides must then share one vocabulary, which Vocab
// identifies.
type Logitser interface {
	// Vocab describes the token vocabulary.
	Vocab() VocabInfo
	// Tokenize turns text into token ids as the engine does. With
	// addSpecial it adds the BOS token when the vocabulary asks for it;
	// text that looks like a special token is never parsed as one.
	Tokenize(text string, addSpecial bool) ([]int32, error)
	// Logits evaluates tokens as one sequence from an empty cache and
	// calls fn, in position order, with the logits at every position p
	// in [from, len(tokens)): the scores over the vocabulary for the
	// token following tokens[p]. The slice is valid only during the
	// call. An error from fn stops the evaluation and is returned. The
	// tokens must fit the runtime's context (ErrNotSupported-wrapped
	// errors say when a runtime cannot evaluate them at all).
	Logits(ctx context.Context, tokens []int32, from int, fn func(pos int, logits []float32) error) error
}

// VocabInfo identifies a token vocabulary.
type VocabInfo struct {
	// Size is the number of logits per position.
	Size int `json:"size"`
	// BOS is the beginning-of-sequence token, -1 when there is none;
	// AddBOS whether tokenization with special tokens adds it.
	BOS    int32 `json:"bos"`
	AddBOS bool  `json:"add_bos"`
	// EOS is the end-of-sequence token, -1 when there is none.
	EOS int32 `json:"eos"`
	// SHA256 is the hex sha256 of every token's bytes in id order, each
	// preceded by its length as a little-endian uint32: two runtimes with
	// the same value map ids to the same text.
	SHA256 string `json:"sha256"`
}

// VocabSHA256 is VocabInfo.SHA256 of a vocabulary of n tokens whose bytes
// piece returns (the slice may be reused once piece is called again).
func VocabSHA256(n int, piece func(id int) []byte) string {
	h := sha256.New()
	var n4 [4]byte
	for t := 0; t < n; t++ {
		b := piece(t)
		binary.LittleEndian.PutUint32(n4[:], uint32(len(b)))
		h.Write(n4[:])
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
