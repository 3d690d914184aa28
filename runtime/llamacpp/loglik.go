//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

// LogLikelihood scores each continuation given its context (see the
// package documentation for tokenisation and truncation). Runs of
// consecutive requests with the same context (the choices of one
// multiple-choice question) go to one worker, which evaluates the shared
// context once; runs are spread over the workers and results come back in
// request order.
func (r *Runtime) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	results := make([]runtime.LoglikResult, len(reqs))
	if len(reqs) == 0 {
		return results, nil
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	// groups[g] is the first request of run g; the run ends where the next
	// one starts.
	groups := []int{0}
	for i := 1; i < len(reqs); i++ {
		if reqs[i].Context != reqs[i-1].Context {
			groups = append(groups, i)
		}
	}
	groups = append(groups, len(reqs))
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	for range min(r.opts.Workers, len(groups)-1) {
		wg.Go(func() {
			w, err := r.acquire(inner)
			if err != nil {
				fail(err)
				return
			}
			defer r.release(w)
			for {
				g := int(next.Add(1) - 1)
				if g >= len(groups)-1 {
					return
				}
				for i := groups[g]; i < groups[g+1]; i++ {
					res, err := r.loglik(inner, w, reqs[i])
					if err != nil {
						fail(fmt.Errorf("request %d: %w", i, err))
						return
					}
					results[i] = res
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, wrapUnlessCtx("loglikelihood", firstErr)
	}
	return results, nil
}

// loglikTokens returns the tokens to evaluate and n, the number of them that
// belong to the context.
func (r *Runtime) loglikTokens(req runtime.LoglikRequest) ([]llama.Token, int, error) {
	ctxText, contText := splitTrailingSpace(req.Context, req.Continuation)
	whole, err := r.tokenize(ctxText+contText, true)
	if err != nil {
		return nil, 0, err
	}
	ctxToks, err := r.tokenize(ctxText, true)
	if err != nil {
		return nil, 0, err
	}
	n := len(ctxToks)
	if n == 0 {
		// Nothing to condition on (empty context, no BOS): start from a
		// prefix token, as lm-eval conditions on its end-of-text token.
		p := r.bos
		if p == llama.TokenNull {
			p = llama.VocabEOS(r.vocab)
		}
		if p == llama.TokenNull {
			return nil, 0, errors.New("empty context and the model has neither BOS nor EOS to condition on")
		}
		whole = append([]llama.Token{p}, whole...)
		ctxToks = []llama.Token{p}
		n = 1
	}
	if contText != "" && len(whole) <= n {
		// The joint tokenisation swallowed the continuation into the
		// context's last token; score the continuation's own tokens.
		cont, err := r.tokenize(contText, false)
		if err != nil {
			return nil, 0, err
		}
		whole = append(ctxToks[:n:n], cont...)
	}
	return whole, n, nil
}

func (r *Runtime) loglik(ctx context.Context, w *worker, req runtime.LoglikRequest) (runtime.LoglikResult, error) {
	toks, n, err := r.loglikTokens(req)
	if err != nil {
		return runtime.LoglikResult{}, err
	}
	if len(toks) <= n {
		return runtime.LoglikResult{LogProb: 0, IsGreedy: true, Tokens: 0}, nil
	}
	// The model reads every token but the last; drop tokens from the left
	// when that does not fit, as lm-eval truncates to max_length.
	if over := len(toks) - 1 - r.nCtx; over > 0 {
		if n-over < 1 {
			return runtime.LoglikResult{}, fmt.Errorf("%w: continuation of %d tokens does not fit a context of %d", ErrPromptTooLong, len(toks)-n, r.nCtx)
		}
		toks, n = toks[over:], n-over
	}
	// Two phases, always: the context without its last token (kept in the
	// KV cache, so the next request with the same context skips it), then
	// the last context token and the continuation, whose logits are read.
	// Splitting every request the same way makes its numbers independent
	// of whether the first phase was reused.
	prefix := toks[:n-1]
	if !w.prefixValid || !slices.Equal(w.prefix, prefix) {
		if err := w.reset(); err != nil {
			return runtime.LoglikResult{}, err
		}
		if err := w.eval(ctx, prefix, 0, len(prefix), r.nVocab, nil); err != nil {
			return runtime.LoglikResult{}, err
		}
		w.prefix, w.prefixValid = append(w.prefix[:0], prefix...), true
	}
	w.prefixValid = false // until the second phase is undone
	res := runtime.LoglikResult{IsGreedy: true, Tokens: len(toks) - n}
	err = w.eval(ctx, toks[n-1:len(toks)-1], n-1, n-1, r.nVocab, func(pos int, logits []float32) error {
		target := int(toks[pos+1])
		lp, best := logSoftmaxAt(logits, target)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			return fmt.Errorf("log-probability of token %d at position %d is %v", target, pos+1, lp)
		}
		res.LogProb += lp
		if best != target {
			res.IsGreedy = false
		}
		return nil
	})
	if err != nil {
		return runtime.LoglikResult{}, err
	}
	if ok, err := llama.MemorySeqRm(w.mem, 0, llama.Pos(n-1), -1); err == nil && ok {
		w.prefixValid = true
	}
	return res, nil
}

// logSoftmaxAt returns log softmax(logits)[i] computed in float64, and the
// argmax of logits.
func logSoftmaxAt(logits []float32, i int) (float64, int) {
	best := argmax(logits)
	m := float64(logits[best])
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v) - m)
	}
	return float64(logits[i]) - m - math.Log(sum), best
}
