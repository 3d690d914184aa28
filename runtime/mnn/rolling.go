package mnn

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/runtime"
)

var _ runtime.RollingLoglikelihooder = (*Runtime)(nil)

// defaultMaxAllTokens is MNN's max_all_tokens when neither the package
// nor Options.Config sets it (LlmConfig::max_all_tokens).
const defaultMaxAllTokens = 2048

// MaxLength is the number of tokens the engine reads in one sequence:
// max_all_tokens from Options.Config (--mnn-config), else from the
// package's config.json, else MNN's default of 2048. It is lm-eval's
// max_length for rolling log-likelihoods, as the llama.cpp runtime uses
// its context size.
func (r *Runtime) MaxLength() (int, error) {
	if n, ok, err := configMaxAllTokens(r.opts.Config); ok || err != nil {
		return n, err
	}
	if r.pkg.MaxAllTokens > 0 {
		return r.pkg.MaxAllTokens, nil
	}
	return defaultMaxAllTokens, nil
}

// configMaxAllTokens reads max_all_tokens from extra config keys (a JSON
// number or a Go int); ok is false when the key is absent.
func configMaxAllTokens(cfg map[string]any) (n int, ok bool, err error) {
	v, ok := cfg["max_all_tokens"]
	if !ok {
		return 0, false, nil
	}
	switch x := v.(type) {
	case int:
		n = x
	case float64:
		if n = int(x); float64(n) != x {
			n = 0
		}
	}
	if n < 1 {
		return 0, true, fmt.Errorf("config key max_all_tokens: want a positive integer, got %v", v)
	}
	return n, true, nil
}

// LoglikelihoodRolling scores each text whole in lm-eval's rolling
// windows of MaxLength tokens (runtime.LoglikRolling): each window is one
// all-logits forward pass from an empty cache, whatever the prefix cache
// setting. The first token is conditioned on the tokenizer's BOS, else on
// the lowest stop token (lm-eval's prefix_token_id).
func (r *Runtime) LoglikelihoodRolling(ctx context.Context, texts []string) ([]runtime.RollingResult, error) {
	maxLen, err := r.MaxLength()
	if err != nil {
		return nil, fmt.Errorf("mnn loglikelihood_rolling: %w", err)
	}
	out := make([]runtime.RollingResult, len(texts))
	for i, t := range texts {
		res, err := runtime.LoglikRolling(ctx, r, t, maxLen)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("mnn loglikelihood_rolling: text %d: %w", i, err)
		}
		out[i] = res
	}
	return out, nil
}
