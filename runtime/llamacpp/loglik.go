//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

// LogLikelihood scores each continuation given its context (see the
// package documentation for tokenisation and truncation). Each run of
// consecutive requests with the same context (the choices of one
// multiple-choice question) is one job on one sequence, which evaluates
// the shared context once; the runs are decoded together like concurrent
// generations, and results come back in request order.
func (r *Runtime) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	results := make([]runtime.LoglikResult, len(reqs))
	if len(reqs) == 0 {
		return results, nil
	}
	if err := r.sched.enter(); err != nil {
		return nil, fmt.Errorf("loglikelihood: %w", err)
	}
	defer r.sched.leave()
	var jobs []*loglikJob
	for i := 0; i < len(reqs); {
		j := &loglikJob{r: r, ctx: ctx, first: i, results: results, done: make(chan struct{})}
		for ; i < len(reqs) && reqs[i].Context == reqs[j.first].Context; i++ {
			q, err := r.scoredRequest(reqs[i])
			if err != nil {
				return nil, wrapUnlessCtx("loglikelihood", fmt.Errorf("request %d: %w", i, err))
			}
			j.reqs = append(j.reqs, q)
			if len(q.toks) > q.n {
				r.sched.requested.Add(int64(len(q.toks) - 1))
			}
		}
		jobs = append(jobs, j)
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for g, j := range jobs {
		wg.Go(func() {
			if err := r.sched.submit(ctx, j, j.done); err != nil {
				errs[g] = err
			} else if j.err != nil {
				errs[g] = fmt.Errorf("request %d: %w", j.first+j.i, j.err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, wrapUnlessCtx("loglikelihood", err)
		}
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

// scored is one log-likelihood request ready to evaluate: the model reads
// toks[:len-1] and toks[:n] is the context.
type scored struct {
	toks []llama.Token
	n    int
}

// scoredRequest tokenises req and, when the model cannot read all of it,
// drops tokens from the left, as lm-eval truncates to max_length.
func (r *Runtime) scoredRequest(req runtime.LoglikRequest) (scored, error) {
	toks, n, err := r.loglikTokens(req)
	if err != nil {
		return scored{}, err
	}
	if len(toks) <= n {
		return scored{toks: toks, n: n}, nil
	}
	if over := len(toks) - 1 - r.nCtx; over > 0 {
		if n-over < 1 {
			return scored{}, fmt.Errorf("%w: continuation of %d tokens does not fit a context of %d", ErrPromptTooLong, len(toks)-n, r.nCtx)
		}
		toks, n = toks[over:], n-over
	}
	return scored{toks: toks, n: n}, nil
}

// loglikJob scores requests sharing one context, one after another on one
// sequence. Each is evaluated in two phases, always: the trunk (the
// context without its last token), kept in the sequence for the next
// request, then the last context token and the continuation, whose logits
// are read and which are removed again. Splitting every request the same
// way makes its numbers independent of whether the trunk was reused.
type loglikJob struct {
	r       *Runtime
	ctx     context.Context
	reqs    []scored
	first   int // index of reqs[0] in the caller's slice
	results []runtime.LoglikResult

	i     int // the request being evaluated
	phase loglikPhase
	res   runtime.LoglikResult

	err  error
	done chan struct{}
}

type loglikPhase int

const (
	phaseStart  loglikPhase = iota // decide what of the sequence to keep
	phaseTrunk                     // evaluate the rest of the trunk
	phaseBranch                    // evaluate the last context token and the continuation
)

func (j *loglikJob) context() context.Context { return j.ctx }

func (j *loglikJob) trunk() []llama.Token {
	q := j.reqs[j.i]
	return q.toks[:q.n-1]
}

func (j *loglikJob) reuse() []llama.Token {
	if len(j.reqs[0].toks) <= j.reqs[0].n {
		return nil
	}
	return j.reqs[0].toks[:j.reqs[0].n-1]
}

func (j *loglikJob) next(d *decoder, sl *slot) (segment, error) {
	for ; j.i < len(j.reqs); j.i++ {
		q := j.reqs[j.i]
		if len(q.toks) <= q.n {
			// Nothing to score (an empty continuation).
			j.results[j.first+j.i] = runtime.LoglikResult{LogProb: 0, IsGreedy: true, Tokens: 0}
			continue
		}
		trunk := j.trunk()
		switch j.phase {
		case phaseStart:
			d.truncate(sl, d.reusable(sl, trunk))
			j.phase = phaseTrunk
			fallthrough
		case phaseTrunk:
			if rest := trunk[len(sl.cache):]; len(rest) > 0 {
				return segment{toks: rest, out: len(rest), prefill: true}, nil
			}
			if d.exact {
				// Kept because identical, or computed just now from an
				// empty sequence by itself.
				sl.trunk = true
			}
			j.phase = phaseBranch
			j.res = runtime.LoglikResult{IsGreedy: true, Tokens: len(q.toks) - q.n}
			fallthrough
		case phaseBranch:
			return segment{toks: q.toks[len(sl.cache) : len(q.toks)-1], prefill: true}, nil
		}
	}
	return segment{}, nil
}

func (j *loglikJob) advance(d *decoder, sl *slot, n int, first int32) (bool, error) {
	if j.phase != phaseBranch {
		return false, nil
	}
	q := j.reqs[j.i]
	for k := range n {
		pos := len(sl.cache) - n + k
		logits, err := d.logits(first + int32(k))
		if err != nil {
			return true, err
		}
		target := int(q.toks[pos+1])
		lp, best := logSoftmaxAt(logits, target)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			return true, fmt.Errorf("log-probability of token %d at position %d is %v", target, pos+1, lp)
		}
		j.res.LogProb += lp
		if best != target {
			j.res.IsGreedy = false
		}
	}
	if len(sl.cache) < len(q.toks)-1 {
		return false, nil // more continuation chunks to come
	}
	j.results[j.first+j.i] = j.res
	wasTrunk := sl.trunk
	d.truncate(sl, len(j.trunk()))
	sl.trunk = wasTrunk
	j.i++
	j.phase = phaseStart
	return false, nil // next reports the end, after skipping empty continuations
}

func (j *loglikJob) finish(err error) {
	j.err = err
	close(j.done)
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
