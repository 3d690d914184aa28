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
// previous token plus an argmax over the logits. PrefillTime covers the
// prompt; FirstTokenLag is the prompt plus choosing the first token;
// DecodeTime covers the NGen steps. With NPrompt 0 a single BOS (or bench)
// token is decoded untimed to give the steps a context. LoadTime is the
// model and context load time of Open, reported on the first call only.
func (r *Runtime) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	if req.NPrompt < 0 || req.NGen < 0 {
		return runtime.BenchResult{}, fmt.Errorf("bench: negative size (prompt %d, gen %d)", req.NPrompt, req.NGen)
	}
	if need := max(req.NPrompt, 1) + req.NGen; need > r.nCtx {
		return runtime.BenchResult{}, fmt.Errorf("bench: %w: %d prompt + %d generated tokens, the context holds %d", ErrPromptTooLong, req.NPrompt, req.NGen, r.nCtx)
	}
	w, err := r.acquire(ctx)
	if err != nil {
		return runtime.BenchResult{}, wrapUnlessCtx("bench", err)
	}
	defer r.release(w)
	res, err := r.bench(ctx, w, req)
	if err != nil {
		return runtime.BenchResult{}, wrapUnlessCtx("bench", err)
	}
	if r.loadReported.CompareAndSwap(false, true) {
		res.LoadTime = r.loadTime
	}
	return res, nil
}

func (r *Runtime) bench(ctx context.Context, w *worker, req runtime.BenchRequest) (runtime.BenchResult, error) {
	if err := w.reset(); err != nil {
		return runtime.BenchResult{}, err
	}
	var res runtime.BenchResult
	var next llama.Token
	pick := func(_ int, logits []float32) error {
		next = llama.Token(argmax(logits))
		return nil
	}
	pos := 0
	if req.NPrompt > 0 {
		prompt := make([]llama.Token, req.NPrompt)
		for i := range prompt {
			prompt[i] = r.benchTk
		}
		start := time.Now()
		if err := w.eval(ctx, prompt, 0, len(prompt)-1, r.nVocab, nil); err != nil {
			return res, fmt.Errorf("prefill: %w", err)
		}
		res.PrefillTime = time.Since(start)
		logits, err := llama.GetLogitsIth(w.lctx, -1, r.nVocab)
		if err != nil || logits == nil {
			return res, fmt.Errorf("prefill: no logits (%v)", err)
		}
		next = llama.Token(argmax(logits))
		res.FirstTokenLag = time.Since(start)
		res.PromptTokens = req.NPrompt
		pos = req.NPrompt
	} else {
		first := r.bos
		if first == llama.TokenNull {
			first = r.benchTk
		}
		if err := w.eval(ctx, []llama.Token{first}, 0, 0, r.nVocab, pick); err != nil {
			return res, fmt.Errorf("start context: %w", err)
		}
		pos = 1
	}
	start := time.Now()
	for i := range req.NGen {
		if err := w.eval(ctx, []llama.Token{next}, pos+i, pos+i, r.nVocab, pick); err != nil {
			return res, fmt.Errorf("decode step %d: %w", i, err)
		}
	}
	if req.NGen > 0 {
		res.DecodeTime = time.Since(start)
		res.GenTokens = req.NGen
	}
	return res, nil
}
