package mnn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/runtime"
)

var _ runtime.Logitser = (*Runtime)(nil)

// allLogitser is an engine that hands out the logits of every position
// of a sequence (the cgo engine).
type allLogitser interface {
	// AllLogits runs ids from an empty cache and returns len(ids) rows
	// of vocab logits, row r scoring the token after ids[r]; valid until
	// the next call on the engine.
	AllLogits(ids []int) (logits []float32, vocab int, err error)
}

// vocabState is what Vocab and Tokenize learn from the engine once.
type vocabState struct {
	once   sync.Once
	info   runtime.VocabInfo
	prefix []int // the tokens MNN's tokenizer puts before every text
	err    error
}

// vocab inspects the vocabulary on an idle engine: its size (the width of
// one forward pass's logits), the prefix tokens the tokenizer adds (the
// tokens of the empty text), the lowest stop token as EOS and the hash of
// every token's bytes as tokenizer_decode gives them (runtime.VocabSHA256,
// as the llama.cpp runtime hashes its tokens, so the hashes of two
// runtimes agree when their tokens do).
func (r *Runtime) vocab() *vocabState {
	vs := &r.vocabInfo
	vs.once.Do(func() {
		s, err := r.pool.acquire(context.Background(), r.closedChan)
		if err != nil {
			vs.err = err
			return
		}
		defer r.pool.release(s)
		r.pool.record(s, nil)
		al, ok := s.e.(allLogitser)
		if !ok {
			vs.err = fmt.Errorf("this engine does not expose logits: %w", runtime.ErrNotSupported)
			return
		}
		_, size, err := al.AllLogits([]int{0})
		if err != nil {
			vs.err = err
			return
		}
		prefix, err := s.e.Tokenize("")
		if err != nil {
			vs.err = fmt.Errorf("tokenize the empty text: %w", err)
			return
		}
		eos := int32(-1)
		sum := runtime.VocabSHA256(size, func(t int) []byte {
			if eos < 0 && s.e.IsStop(t) {
				eos = int32(t)
			}
			return s.e.Piece(t)
		})
		bos := int32(-1)
		if len(prefix) > 0 {
			bos = int32(prefix[0])
		}
		vs.prefix = prefix
		vs.info = runtime.VocabInfo{Size: size, BOS: bos, AddBOS: len(prefix) > 0, EOS: eos, SHA256: sum}
	})
	return vs
}

// Vocab describes the package's vocabulary; its Size is 0 when the engine
// could not be inspected (Logits then returns the reason).
func (r *Runtime) Vocab() runtime.VocabInfo { return r.vocab().info }

// Tokenize encodes text with MNN's tokenizer. MNN always adds its prefix
// tokens (the BOS, for vocabularies that have one); without addSpecial
// they are removed. MNN's tokenizer reads special-token text in the input
// as the special token: unlike llama.cpp's Tokenize, such text is not kept
// as plain text.
func (r *Runtime) Tokenize(text string, addSpecial bool) ([]int32, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return nil, errors.New("tokenize: text contains a NUL byte")
	}
	vs := r.vocab()
	if vs.err != nil {
		return nil, fmt.Errorf("tokenize: %w", vs.err)
	}
	s, err := r.pool.acquire(context.Background(), r.closedChan)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	ids, err := s.e.Tokenize(text)
	r.pool.release(s)
	if err != nil {
		return nil, fmt.Errorf("tokenize: %w", err)
	}
	if !addSpecial && commonPrefix(ids, vs.prefix) == len(vs.prefix) {
		ids = ids[len(vs.prefix):]
	}
	out := make([]int32, len(ids))
	for i, t := range ids {
		out[i] = int32(t)
	}
	return out, nil
}

// Logits runs tokens through an idle engine from an empty cache in one
// all-logits forward pass and hands fn the rows of positions from onwards.
func (r *Runtime) Logits(ctx context.Context, tokens []int32, from int, fn func(pos int, logits []float32) error) error {
	if len(tokens) == 0 || from < 0 || from >= len(tokens) {
		return fmt.Errorf("mnn logits: positions from %d of %d tokens", from, len(tokens))
	}
	vs := r.vocab()
	if vs.err != nil {
		return fmt.Errorf("mnn logits: %w", vs.err)
	}
	ids := make([]int, len(tokens))
	for i, t := range tokens {
		if t < 0 || int(t) >= vs.info.Size {
			return fmt.Errorf("mnn logits: token %d at position %d is outside the vocabulary of %d", t, i, vs.info.Size)
		}
		ids[i] = int(t)
	}
	s, err := r.pool.acquire(ctx, r.closedChan)
	if err != nil {
		if err == ctx.Err() {
			return err
		}
		return fmt.Errorf("mnn logits: %w", err)
	}
	defer r.pool.release(s)
	r.pool.record(s, nil)
	if err := ctx.Err(); err != nil {
		return err
	}
	al, ok := s.e.(allLogitser)
	if !ok {
		return fmt.Errorf("mnn logits: this engine does not expose logits: %w", runtime.ErrNotSupported)
	}
	r.pool.ran(len(ids), len(ids))
	all, size, err := al.AllLogits(ids)
	if err != nil {
		return fmt.Errorf("mnn logits: %d tokens: %w", len(ids), err)
	}
	if size != vs.info.Size {
		return fmt.Errorf("mnn logits: the engine returned %d logits per position, the vocabulary has %d", size, vs.info.Size)
	}
	for p := from; p < len(ids); p++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(p, all[p*size:(p+1)*size:(p+1)*size]); err != nil {
			return err
		}
	}
	return nil
}
