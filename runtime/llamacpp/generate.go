//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// Generate runs one request to completion. See the package documentation
// for templates, sampling, stop conditions and timings.
func (r *Runtime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return r.generate(ctx, req, nil)
}

// generate is Generate, reporting text as it is decoded to text (nil:
// not streamed).
func (r *Runtime) generate(ctx context.Context, req runtime.Request, text *runtime.TextStream) (runtime.Response, error) {
	if err := checkGen(req.Gen); err != nil {
		return runtime.Response{}, fmt.Errorf("generate: %w", err)
	}
	if err := r.sched.enter(); err != nil {
		return runtime.Response{}, fmt.Errorf("generate: %w", err)
	}
	defer r.sched.leave()
	prompt, rendered, err := r.promptTokens(ctx, req)
	if err != nil {
		return runtime.Response{}, fmt.Errorf("generate: %w", err)
	}
	grammar, err := r.toolGrammar(req)
	if err != nil {
		return runtime.Response{}, fmt.Errorf("generate: %w", err)
	}
	smpl, err := r.newSampler(req.Gen, grammar)
	if err != nil {
		return runtime.Response{}, fmt.Errorf("generate: %w", err)
	}
	j := &genJob{
		r: r, ctx: ctx, prompt: prompt, rendered: rendered, maxTokens: req.Gen.MaxTokens,
		smpl: smpl, done: make(chan struct{}),
		speculative: r.spec != nil && req.Gen.Temperature == 0 && grammar == "", text: text,
	}
	if j.maxTokens == 0 {
		j.maxTokens = r.opts.DefaultMaxTokens
	}
	for _, s := range req.Gen.Stop {
		if s != "" {
			j.stops = append(j.stops, []byte(s))
		}
	}
	r.sched.requested.Add(int64(len(prompt)))
	if err := r.sched.submit(ctx, j, j.done); err != nil {
		return runtime.Response{}, wrapUnlessCtx("generate", err)
	}
	if j.err != nil {
		return runtime.Response{}, wrapUnlessCtx("generate", j.err)
	}
	if r.chat.tmpl != nil {
		toolcall.Apply(r.chat.tmpl.Source(), req, &j.resp)
	}
	return j.resp, nil
}

// newSampler builds the sampler chain for g: the grammar first when one
// is given (grammar.go), then greedy at temperature 0, otherwise top-p
// (when 0 < TopP < 1), temperature and a seeded draw.
func (r *Runtime) newSampler(g runtime.GenConfig, grammar string) (llama.Sampler, error) {
	chain := llama.SamplerChainInit(llama.SamplerChainDefaultParams())
	if grammar != "" {
		gs := llama.SamplerInitGrammar(r.vocab, grammar, "root")
		if gs == 0 {
			llama.SamplerFree(chain)
			return 0, errors.New("llama.cpp refused the tool-call grammar")
		}
		llama.SamplerChainAdd(chain, gs)
	}
	return newSamplerChain(chain, g), nil
}

// newSamplerChain adds g's samplers to chain.
func newSamplerChain(chain llama.Sampler, g runtime.GenConfig) llama.Sampler {
	if g.Temperature == 0 {
		llama.SamplerChainAdd(chain, llama.SamplerInitGreedy())
		return chain
	}
	if g.TopP > 0 && g.TopP < 1 {
		llama.SamplerChainAdd(chain, llama.SamplerInitTopP(float32(g.TopP), 1))
	}
	llama.SamplerChainAdd(chain, llama.SamplerInitTemp(float32(g.Temperature)))
	llama.SamplerChainAdd(chain, llama.SamplerInitDist(samplerSeed(g.Seed)))
	return chain
}

// genJob is one generation: its prompt is prefilled, then one sampled
// token at a time is decoded until a stop condition.
type genJob struct {
	r         *Runtime
	ctx       context.Context
	prompt    []llama.Token
	rendered  string // the chat prompt as rendered (empty for raw prompts)
	maxTokens int
	stops     [][]byte
	smpl      llama.Sampler // freed by finish
	// speculative: greedy with a draft model, so a step may verify
	// drafted tokens (speculative.go).
	speculative bool
	counts      draftCounts
	// text, when streaming, is told the output as it grows.
	text *runtime.TextStream

	prefilled  bool
	cached     int         // prompt tokens found in the cache
	pending    llama.Token // sampled, to be decoded next
	out        []byte
	completion int // tokens of the text (not the final end-of-generation token)
	sampled    int

	tStart, tPrefilled, tFirst, tEnd time.Time

	resp runtime.Response
	err  error
	done chan struct{}
}

func (j *genJob) context() context.Context { return j.ctx }

// reuse: everything but the last prompt token, whose logits are needed.
func (j *genJob) reuse() []llama.Token { return j.prompt[:len(j.prompt)-1] }

func (j *genJob) next(d *decoder, sl *slot) (segment, error) {
	if j.tStart.IsZero() {
		j.tStart = time.Now()
		j.cached = len(sl.cache)
	}
	if !j.prefilled {
		rest := j.prompt[len(sl.cache):]
		return segment{toks: rest, out: len(rest) - 1, prefill: true}, nil
	}
	return segment{toks: []llama.Token{j.pending}}, nil
}

// drafts: with a draft model, the prompt is evaluated by it too, and
// every step may draft as many tokens as fit after the next one in the
// context and in the budget.
func (j *genJob) drafts(sl *slot, seg segment) draftAction {
	switch {
	case !j.speculative:
		return draftAction{}
	case !j.prefilled:
		return draftAction{prompt: true}
	}
	return draftAction{limit: min(j.r.nCtx-len(sl.cache)-1, j.maxTokens-j.completion-1)}
}

func (j *genJob) advance(d *decoder, sl *slot, n int, first int32) (bool, error) {
	if !j.prefilled {
		if len(sl.cache) < len(j.prompt) {
			return false, nil // more prompt chunks to come
		}
		j.prefilled, j.tPrefilled = true, time.Now()
		return j.take(d, llama.SamplerSample(j.smpl, d.lctx, first+int32(n)-1), len(sl.cache)), nil
	}
	var c *draftCounts
	if j.speculative {
		c = &j.counts
	}
	toks, err := d.verify(sl, n, first, func(i int32) (llama.Token, error) { return llama.SamplerSample(j.smpl, d.lctx, i), nil }, c)
	if err != nil {
		return true, err
	}
	held := len(sl.cache) - len(toks) // before the first of toks was evaluated
	for i, tok := range toks {
		if j.take(d, tok, held+i+1) {
			return true, nil
		}
	}
	j.pending = toks[len(toks)-1]
	return false, nil
}

// take adds one sampled token to the output; held is how many tokens the
// sequence holds once the token before it is evaluated, as plain decoding
// has it. It reports whether generation ends there (the response is
// then assembled).
func (j *genJob) take(d *decoder, tok llama.Token, held int) bool {
	j.sampled++
	j.tEnd = time.Now()
	if j.sampled == 1 {
		j.tFirst = j.tEnd
	}
	if tok == llama.TokenNull || llama.VocabIsEOG(j.r.vocab, tok) {
		j.result(runtime.FinishStop)
		return true
	}
	j.completion++
	prev := len(j.out)
	j.out = append(j.out, d.tokenPiece(tok)...)
	if cut := findStop(j.out, prev, j.stops); cut >= 0 {
		j.out = j.out[:cut]
		j.result(runtime.FinishStop)
		return true
	}
	j.text.Update(j.out)
	if j.completion >= j.maxTokens || held >= j.r.nCtx {
		j.result(runtime.FinishLength)
		return true
	}
	j.pending = tok
	return false
}

// result assembles the response.
func (j *genJob) result(finish string) {
	t := runtime.Timings{
		TimeToFirstToken: j.tFirst.Sub(j.tStart),
		Total:            time.Since(j.tStart),
		PrefillTokPerSec: perSecond(len(j.prompt), j.tPrefilled.Sub(j.tStart)),
	}
	if j.sampled > 1 {
		t.DecodeTokPerSec = perSecond(j.sampled-1, j.tEnd.Sub(j.tFirst))
	}
	j.resp = runtime.Response{
		Text:             validUTF8(j.out),
		RenderedPrompt:   j.rendered,
		FinishReason:     finish,
		PromptTokens:     len(j.prompt),
		CompletionTokens: j.completion,
		Timings:          t,
	}
	j.text.Final(j.resp.Text)
}

func (j *genJob) finish(err error) {
	llama.SamplerFree(j.smpl)
	j.err = err
	close(j.done)
}
