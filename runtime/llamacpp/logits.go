//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

var _ runtime.Logitser = (*Runtime)(nil)

// vocabOnce computes Vocab's hash once per Runtime.
type vocabOnce struct {
	once sync.Once
	info runtime.VocabInfo
}

// Vocab describes the model's vocabulary; the hash covers every token's
// bytes as llama_token_to_piece renders them with special tokens shown.
func (r *Runtime) Vocab() runtime.VocabInfo {
	vo := &r.vocabInfo
	vo.once.Do(func() {
		buf := make([]byte, 256)
		sum := runtime.VocabSHA256(r.nVocab, func(t int) []byte {
			n := llama.TokenToPiece(r.vocab, llama.Token(t), buf, 0, true)
			if n < 0 {
				buf = make([]byte, -n)
				n = llama.TokenToPiece(r.vocab, llama.Token(t), buf, 0, true)
			}
			return buf[:max(n, 0)]
		})
		bos := int32(-1)
		if r.bos != llama.TokenNull {
			bos = int32(r.bos)
		}
		eos := int32(-1)
		if t := llama.VocabEOS(r.vocab); t != llama.TokenNull {
			eos = int32(t)
		}
		vo.info = runtime.VocabInfo{Size: r.nVocab, BOS: bos, AddBOS: r.addBOS, EOS: eos, SHA256: sum}
	})
	return vo.info
}

// Tokenize turns text into tokens as llama.cpp's common_tokenize does
// (llama-perplexity's tokenization): with addSpecial the vocabulary's BOS
// (and EOS, if it asks for one), special-token text read as plain text.
func (r *Runtime) Tokenize(text string, addSpecial bool) ([]int32, error) {
	if strings.IndexByte(text, 0) >= 0 {
		return nil, errors.New("tokenize: text contains a NUL byte")
	}
	toks := llama.Tokenize(r.vocab, text, addSpecial, false)
	out := make([]int32, len(toks))
	for i, t := range toks {
		out[i] = int32(t)
	}
	return out, nil
}

// Logits evaluates tokens on one sequence of its own, from an empty cache,
// through the decode scheduler (so it runs beside other requests), and
// hands fn the logits of positions from onwards as each batch yields them.
func (r *Runtime) Logits(ctx context.Context, tokens []int32, from int, fn func(pos int, logits []float32) error) error {
	if len(tokens) == 0 || from < 0 || from >= len(tokens) {
		return fmt.Errorf("logits: positions from %d of %d tokens", from, len(tokens))
	}
	if len(tokens) > r.nCtx {
		return fmt.Errorf("logits: %w: %d tokens do not fit a context of %d", ErrPromptTooLong, len(tokens), r.nCtx)
	}
	toks := make([]llama.Token, len(tokens))
	for i, t := range tokens {
		if t < 0 || int(t) >= r.nVocab {
			return fmt.Errorf("logits: token %d at position %d is outside the vocabulary of %d", t, i, r.nVocab)
		}
		toks[i] = llama.Token(t)
	}
	if err := r.sched.enter(); err != nil {
		return fmt.Errorf("logits: %w", err)
	}
	defer r.sched.leave()
	r.sched.requested.Add(int64(len(toks)))
	j := &logitsJob{ctx: ctx, toks: toks, from: from, fn: fn, done: make(chan struct{})}
	if err := r.sched.submit(ctx, j, j.done); err != nil {
		return wrapUnlessCtx("logits", err)
	}
	if j.err != nil {
		return wrapUnlessCtx("logits", j.err)
	}
	return nil
}

// logitsJob evaluates toks from position 0 and reads the logits of
// positions from onwards.
type logitsJob struct {
	ctx  context.Context
	toks []llama.Token
	from int
	fn   func(int, []float32) error
	// started is set once the sequence has been emptied.
	started bool
	err     error
	done    chan struct{}
}

func (j *logitsJob) context() context.Context { return j.ctx }

// reuse is nil: the sequence starts empty, so the numbers do not depend on
// what ran before.
func (j *logitsJob) reuse() []llama.Token { return nil }

func (j *logitsJob) next(d *decoder, sl *slot) (segment, error) {
	if !j.started {
		d.truncate(sl, 0)
		j.started = true
	}
	if len(sl.cache) >= len(j.toks) {
		return segment{}, nil
	}
	at := len(sl.cache)
	return segment{toks: j.toks[at:], out: max(0, j.from-at), prefill: true}, nil
}

func (j *logitsJob) advance(d *decoder, sl *slot, n int, first int32) (bool, error) {
	start := len(sl.cache) - n
	for k := max(0, j.from-start); k < n; k++ {
		l, err := d.logits(first + int32(k))
		if err != nil {
			return true, err
		}
		if err := j.fn(start+k, l); err != nil {
			return true, err
		}
	}
	return len(sl.cache) >= len(j.toks), nil
}

func (j *logitsJob) finish(err error) {
	j.err = err
	close(j.done)
}
