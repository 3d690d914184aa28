//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
)

// Generate runs one request to completion on a free context. See the
// package documentation for templates, sampling, stop conditions and
// timings.
func (r *Runtime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if err := checkGen(req.Gen); err != nil {
		return runtime.Response{}, fmt.Errorf("generate: %w", err)
	}
	w, err := r.acquire(ctx)
	if err != nil {
		return runtime.Response{}, wrapUnlessCtx("generate", err)
	}
	defer r.release(w)
	resp, err := r.generate(ctx, w, req)
	if err != nil {
		return runtime.Response{}, wrapUnlessCtx("generate", err)
	}
	return resp, nil
}

// newSampler builds the sampler chain for g: greedy at temperature 0,
// otherwise top-p (when 0 < TopP < 1), temperature and a seeded draw.
func newSampler(g runtime.GenConfig) llama.Sampler {
	chain := llama.SamplerChainInit(llama.SamplerChainDefaultParams())
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

func (r *Runtime) generate(ctx context.Context, w *worker, req runtime.Request) (runtime.Response, error) {
	start := time.Now()
	prompt, rendered, err := r.promptTokens(req)
	if err != nil {
		return runtime.Response{}, err
	}
	maxTokens := req.Gen.MaxTokens
	if maxTokens == 0 {
		maxTokens = r.opts.DefaultMaxTokens
	}
	stops := make([][]byte, 0, len(req.Gen.Stop))
	for _, s := range req.Gen.Stop {
		if s != "" {
			stops = append(stops, []byte(s))
		}
	}
	if err := w.reset(); err != nil {
		return runtime.Response{}, err
	}
	smpl := newSampler(req.Gen)
	defer llama.SamplerFree(smpl)

	tPrefill := time.Now()
	if err := w.eval(ctx, prompt, 0, len(prompt)-1, r.nVocab, nil); err != nil {
		return runtime.Response{}, fmt.Errorf("prefill %d tokens: %w", len(prompt), err)
	}
	prefill := time.Since(tPrefill)

	var (
		out          []byte
		completion   int
		sampled      int
		finish       string
		tFirst, tEnd time.Time
		pos          = len(prompt)
	)
	for {
		if err := ctx.Err(); err != nil {
			return runtime.Response{}, err
		}
		tok := llama.SamplerSample(smpl, w.lctx, -1)
		sampled++
		tEnd = time.Now()
		if sampled == 1 {
			tFirst = tEnd
		}
		if tok == llama.TokenNull || llama.VocabIsEOG(r.vocab, tok) {
			finish = runtime.FinishStop
			break
		}
		completion++
		prev := len(out)
		out = append(out, w.tokenPiece(r.vocab, tok)...)
		if cut := findStop(out, prev, stops); cut >= 0 {
			out = out[:cut]
			finish = runtime.FinishStop
			break
		}
		if completion >= maxTokens || pos >= r.nCtx {
			finish = runtime.FinishLength
			break
		}
		w.batch.Clear()
		if err := w.batch.Add(tok, llama.Pos(pos), seq0, true); err != nil {
			return runtime.Response{}, fmt.Errorf("fill batch: %w", err)
		}
		if err := w.decode(); err != nil {
			return runtime.Response{}, fmt.Errorf("decode token %d: %w", completion, err)
		}
		pos++
	}

	t := runtime.Timings{
		TimeToFirstToken: tFirst.Sub(start),
		Total:            time.Since(start),
		PrefillTokPerSec: perSecond(len(prompt), prefill),
	}
	if sampled > 1 {
		t.DecodeTokPerSec = perSecond(sampled-1, tEnd.Sub(tFirst))
	}
	return runtime.Response{
		Text:             validUTF8(out),
		RenderedPrompt:   rendered,
		FinishReason:     finish,
		PromptTokens:     len(prompt),
		CompletionTokens: completion,
		Timings:          t,
	}, nil
}
