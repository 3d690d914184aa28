//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

// Bench runs one synthetic measurement in the style of MNN's llm_bench: a
// prompt of NPrompt copies of one ordinary token (the first token of
// "the"), prefilled in one go (in BatchSize chunks), then NGen greedy
// decode steps on the same KV cache, each step one llama_decode of the
// previous token plus an argmax over the logits. Concurrent calls are
// decoded together (with Batch on), so their aggregate rate measures
// batched decoding; the prefix cache is never used. PrefillTime covers the
// prompt; FirstTokenLag is the prompt plus choosing the first token;
// DecodeTime covers the NGen steps. With NPrompt 0 a single BOS (or bench)
// token is decoded untimed to give the steps a context. With Depth, that
// many bench tokens are evaluated first, untimed, and the prompt (or the
// single token) follows them on the same sequence. LoadTime is the
// model and context load time of Open, reported on the first call only.
//
// With a draft model (Options.DraftModel) the draft model evaluates the
// prompt too (within PrefillTime) and each decode step drafts and verifies
// (speculative.go), decoding up to DraftMax+1 tokens but never past NGen;
// VerifySteps, Drafted and Accepted count those steps.
func (r *Runtime) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	if req.NPrompt < 0 || req.NGen < 0 {
		return runtime.BenchResult{}, fmt.Errorf("bench: negative size (prompt %d, gen %d)", req.NPrompt, req.NGen)
	}
	if req.Depth < 0 {
		return runtime.BenchResult{}, fmt.Errorf("bench: negative depth %d", req.Depth)
	}
	if need := req.Depth + max(req.NPrompt, 1) + req.NGen; need > r.nCtx {
		return runtime.BenchResult{}, fmt.Errorf("bench: %w: %d cached + %d prompt + %d generated tokens, the context holds %d", ErrPromptTooLong, req.Depth, req.NPrompt, req.NGen, r.nCtx)
	}
	if err := r.sched.enter(); err != nil {
		return runtime.BenchResult{}, fmt.Errorf("bench: %w", err)
	}
	defer r.sched.leave()
	j := &benchJob{r: r, ctx: ctx, req: req, done: make(chan struct{})}
	if req.NPrompt > 0 || req.Depth > 0 {
		j.prompt = make([]llama.Token, req.Depth+max(req.NPrompt, 1))
		for i := range j.prompt {
			j.prompt[i] = r.benchTk
		}
		r.sched.requested.Add(int64(len(j.prompt)))
	} else {
		first := r.bos
		if first == llama.TokenNull {
			first = r.benchTk
		}
		j.prompt = []llama.Token{first}
	}
	if err := r.sched.submit(ctx, j, j.done); err != nil {
		return runtime.BenchResult{}, wrapUnlessCtx("bench", err)
	}
	if j.err != nil {
		return runtime.BenchResult{}, wrapUnlessCtx("bench", j.err)
	}
	res := j.res
	if r.loadReported.CompareAndSwap(false, true) {
		res.LoadTime = r.loadTime
	}
	return res, nil
}

// benchJob is one Bench measurement as a job: its prompt, then NGen steps
// of one argmax token each, end-of-generation tokens included. Run
// concurrently, bench jobs are decoded together like generations.
type benchJob struct {
	r      *Runtime
	ctx    context.Context
	req    runtime.BenchRequest
	prompt []llama.Token

	began     bool
	prefilled bool
	nextTok   llama.Token
	steps     int         // tokens decoded after the first
	counts    draftCounts // with a draft model
	tStart    time.Time
	tFirst    time.Time

	res  runtime.BenchResult
	err  error
	done chan struct{}
}

func (j *benchJob) context() context.Context { return j.ctx }

// reuse: nothing; a synthetic prompt must be computed to be measured.
func (j *benchJob) reuse() []llama.Token { return nil }

func (j *benchJob) next(d *decoder, sl *slot) (segment, error) {
	if !j.began {
		d.truncate(sl, 0)
		if d.draft != nil {
			d.draft.clear(int(sl.seq)) // the draft model computes the prompt too
		}
		j.began = true
	}
	// With a depth, the cache is filled first, untimed and without logits.
	if depth := j.req.Depth; !j.prefilled && len(sl.cache) < depth {
		rest := j.prompt[len(sl.cache):depth]
		return segment{toks: rest, out: len(rest), prefill: true}, nil
	}
	if j.tStart.IsZero() {
		j.tStart = time.Now()
	}
	if !j.prefilled {
		rest := j.prompt[len(sl.cache):]
		return segment{toks: rest, out: len(rest) - 1, prefill: j.req.NPrompt > 0}, nil
	}
	if j.steps == j.req.NGen {
		return segment{}, nil
	}
	return segment{toks: []llama.Token{j.nextTok}}, nil
}

// drafts: with a draft model (the only case the scheduler asks), the
// prompt is evaluated by it too and each step drafts what fits in NGen.
func (j *benchJob) drafts(sl *slot, seg segment) draftAction {
	if !j.prefilled {
		return draftAction{prompt: true}
	}
	return draftAction{limit: j.req.NGen - j.steps - 1}
}

func (j *benchJob) advance(d *decoder, sl *slot, n int, first int32) (bool, error) {
	if !j.prefilled && len(sl.cache) < len(j.prompt) {
		return false, nil
	}
	decoded := time.Now()
	greedy := func(i int32) (llama.Token, error) {
		logits, err := d.logits(i)
		if err != nil {
			return 0, err
		}
		return llama.Token(argmax(logits)), nil
	}
	var err error
	if !j.prefilled {
		j.nextTok, err = greedy(first + int32(n) - 1)
	} else {
		var c *draftCounts
		if d.draft != nil {
			c = &j.counts
		}
		var toks []llama.Token
		if toks, err = d.verify(sl, n, first, greedy, c); err == nil {
			j.nextTok = toks[len(toks)-1]
			j.steps += len(toks)
		}
	}
	if err != nil {
		return true, err
	}
	now := time.Now()
	if !j.prefilled {
		j.prefilled = true
		if j.req.NPrompt > 0 {
			j.res.PromptTokens = j.req.NPrompt
			j.res.PrefillTime = decoded.Sub(j.tStart)
			j.res.FirstTokenLag = now.Sub(j.tStart)
		}
		j.tFirst = now
	}
	if j.steps == j.req.NGen {
		if j.req.NGen > 0 {
			j.res.GenTokens = j.req.NGen
			j.res.DecodeTime = now.Sub(j.tFirst)
		}
		j.res.VerifySteps, j.res.Drafted, j.res.Accepted = j.counts.steps, j.counts.drafted, j.counts.accepted
		return true, nil
	}
	return false, nil
}

func (j *benchJob) finish(err error) {
	j.err = err
	close(j.done)
}
