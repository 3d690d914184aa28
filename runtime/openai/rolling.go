package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/pocketeval/pocketeval/runtime"
)

// RollingPath is the pocketeval extension endpoint, relative to the base
// URL, that `pocketeval serve` offers for runtimes that score whole texts
// (lm-eval's loglikelihood_rolling). Body: {"model", "texts": [...]};
// answer: {"results": [{"logprob", "tokens", "windows"}]}.
const RollingPath = "/loglikelihood_rolling"

// RollingResponseBody is the answer to a RollingPath request.
type RollingResponseBody struct {
	Object  string                  `json:"object"`
	Results []runtime.RollingResult `json:"results"`
}

var _ runtime.RollingLoglikelihooder = (*Client)(nil)

// LoglikelihoodRolling scores each text whole. It uses the server's
// RollingPath extension when it has one: the served runtime cuts the text
// into lm-eval's windows of its own context size, so the result is the
// in-process runtime's. Otherwise it follows lm-eval's API models with the
// "remote" tokenizer backend (vLLM): the text is tokenized by the server
// (GET /tokenizer_info, POST /tokenize at the server's root), cut into
// windows of MaxLength-2 predicted tokens after lm-eval's prefix token
// (BOS, else EOS), and each window is scored through /completions with the
// window's token ids as the prompt, echo and logprobs. A server with
// neither gives an error wrapping runtime.ErrNotSupported. An empty batch
// asks the server whether it can (nil or ErrNotSupported).
func (c *Client) LoglikelihoodRolling(ctx context.Context, texts []string) ([]runtime.RollingResult, error) {
	mode := c.rolling.Load()
	if mode == llUnknown || mode == llExtension {
		res, err := c.rollingExtension(ctx, texts)
		if err == nil {
			c.rolling.Store(llExtension)
			return res, nil
		}
		if !errors.Is(err, runtime.ErrNotSupported) {
			return nil, err
		}
		extErr := err
		if _, terr := c.tokenizer(ctx); terr != nil {
			if errors.Is(terr, runtime.ErrNotSupported) {
				c.rolling.Store(llNone)
				return nil, fmt.Errorf("%w; nor a tokenizer for completions echo: %w", extErr, terr)
			}
			return nil, terr
		}
		c.rolling.CompareAndSwap(llUnknown, llEcho)
		mode = c.rolling.Load()
	}
	if mode == llNone {
		return nil, fmt.Errorf("openai: loglikelihood_rolling: the server at %s offers neither %s nor /tokenize with completions echo+logprobs: %w", redactURL(c.base), RollingPath, runtime.ErrNotSupported)
	}
	out := make([]runtime.RollingResult, len(texts))
	for i, t := range texts {
		res, err := c.rollingEcho(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("openai: loglikelihood_rolling of text %d: %w", i, err)
		}
		out[i] = res
	}
	return out, nil
}

// rollingExtension asks pocketeval serve's RollingPath.
func (c *Client) rollingExtension(ctx context.Context, texts []string) ([]runtime.RollingResult, error) {
	body := map[string]any{"texts": texts}
	if texts == nil {
		body["texts"] = []string{}
	}
	if c.opts.Model != "" {
		body["model"] = c.opts.Model
	}
	return retry(ctx, c, "openai: POST "+RollingPath, func(ctx context.Context) ([]runtime.RollingResult, error) {
		hresp, err := c.post(ctx, RollingPath, body, false)
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) && (ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusMethodNotAllowed || ae.StatusCode == http.StatusNotImplemented) {
				return nil, fmt.Errorf("%w: the server at %s offers no %s (pocketeval serve over a runtime that scores whole texts): %w", err, redactURL(c.base), RollingPath, runtime.ErrNotSupported)
			}
			return nil, err
		}
		var w RollingResponseBody
		if err := decodeBody(hresp, &w); err != nil {
			return nil, err
		}
		if len(w.Results) != len(texts) {
			return nil, fmt.Errorf("server returned %d results for %d texts", len(w.Results), len(texts))
		}
		if len(texts) == 0 {
			return nil, nil
		}
		return w.Results, nil
	})
}
