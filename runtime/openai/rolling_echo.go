package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pocketeval/pocketeval/runtime"
)

// defaultMaxLength is lm-eval's max_length for API models (TemplateAPI).
const defaultMaxLength = 2048

// remoteTokenizer is the server's tokenizer as lm-eval's RemoteTokenizer
// reaches it (vLLM's /tokenizer_info and /tokenize at the server root).
type remoteTokenizer struct {
	root   string // the server's root URL: the base URL without /v1
	prefix int32  // lm-eval's prefix_token_id: BOS, else EOS
}

// serverRoot is the base URL without a trailing /v1, as lm-eval strips
// the OpenAI paths to find the server's tokenizer endpoints.
func serverRoot(base string) string {
	return strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1")
}

// tokenizer learns the server's tokenizer once: its special tokens from
// GET /tokenizer_info and their ids from /tokenize. A server without these
// endpoints gives an error wrapping runtime.ErrNotSupported.
// Only the answer and a missing endpoint are kept: a transient failure is
// tried again by the next call.
func (c *Client) tokenizer(ctx context.Context) (*remoteTokenizer, error) {
	c.tokMu.Lock()
	defer c.tokMu.Unlock()
	if c.tok != nil || c.tokErr != nil {
		return c.tok, c.tokErr
	}
	tk, err := c.learnTokenizer(ctx)
	if err == nil {
		c.tok = tk
	} else if errors.Is(err, runtime.ErrNotSupported) {
		c.tokErr = err
	}
	return tk, err
}

func (c *Client) learnTokenizer(ctx context.Context) (*remoteTokenizer, error) {
	tk := &remoteTokenizer{root: serverRoot(c.base)}
	info, err := c.tokenizerInfo(ctx, tk.root)
	if err != nil {
		return nil, err
	}
	// lm-eval (remote backend): bos_token_id or eos_token_id, each the
	// first id of the token's text encoded without special tokens;
	// Python's `or` passes over an id of 0 as over a missing one.
	var ids [2]*int32
	for i, t := range []*string{info.BOS, info.EOS} {
		if t == nil {
			continue
		}
		toks, err := c.tokenize(ctx, tk.root, *t)
		if err != nil {
			return nil, err
		}
		if len(toks) == 0 {
			return nil, fmt.Errorf("the server's /tokenize gave no tokens for its special token %q", *t)
		}
		ids[i] = &toks[0]
	}
	switch {
	case ids[0] != nil && *ids[0] != 0:
		tk.prefix = *ids[0]
	case ids[1] != nil:
		tk.prefix = *ids[1]
	default:
		return nil, fmt.Errorf("the server's /tokenizer_info names no BOS or EOS token to condition a text's first token on (lm-eval's prefix token): %w", runtime.ErrNotSupported)
	}
	return tk, nil
}

type tokenizerInfo struct {
	BOS *string `json:"bos_token"`
	EOS *string `json:"eos_token"`
}

func (c *Client) tokenizerInfo(ctx context.Context, root string) (tokenizerInfo, error) {
	return retry(ctx, c, "openai: GET /tokenizer_info", func(ctx context.Context) (tokenizerInfo, error) {
		var info tokenizerInfo
		hresp, err := c.doURL(ctx, http.MethodGet, root+"/tokenizer_info", nil, false)
		if err != nil {
			return info, notOffered(err, root+"/tokenizer_info")
		}
		defer hresp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody))
		if err != nil {
			return info, readError(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(data, &raw); err != nil {
			return info, fmt.Errorf("GET %s/tokenizer_info: not a JSON object: %w", redactURL(root), runtime.ErrNotSupported)
		}
		if _, ok := raw["eos_token"]; !ok {
			// lm-eval's check_remote_tokenizer_support asks for eos_token.
			return info, fmt.Errorf("GET %s/tokenizer_info: no eos_token: %w", redactURL(root), runtime.ErrNotSupported)
		}
		for _, f := range []struct {
			key string
			dst **string
		}{{"bos_token", &info.BOS}, {"eos_token", &info.EOS}} {
			key, dst := f.key, f.dst
			v, ok := raw[key]
			if !ok || string(v) == "null" {
				continue
			}
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				// transformers may give an AddedToken as an object.
				var obj struct {
					Content *string `json:"content"`
				}
				if json.Unmarshal(v, &obj) != nil || obj.Content == nil {
					return info, fmt.Errorf("GET %s/tokenizer_info: %s is neither a string nor a token object", redactURL(root), key)
				}
				s = *obj.Content
			}
			*dst = &s
		}
		return info, nil
	})
}

// tokenize is lm-eval's RemoteTokenizer.encode: POST /tokenize with
// {"prompt", "add_special_tokens": false}, as vLLM offers it.
func (c *Client) tokenize(ctx context.Context, root, text string) ([]int32, error) {
	body := map[string]any{"prompt": text, "add_special_tokens": false}
	if c.opts.Model != "" {
		body["model"] = c.opts.Model
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return retry(ctx, c, "openai: POST /tokenize", func(ctx context.Context) ([]int32, error) {
		hresp, err := c.doURL(ctx, http.MethodPost, root+"/tokenize", data, false)
		if err != nil {
			return nil, notOffered(err, root+"/tokenize")
		}
		defer hresp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody))
		if err != nil {
			return nil, readError(err)
		}
		var w struct {
			Tokens *[]int32 `json:"tokens"`
		}
		if err := json.Unmarshal(raw, &w); err != nil || w.Tokens == nil {
			return nil, fmt.Errorf("POST %s/tokenize: the answer has no token list (%.80q): %w", redactURL(root), raw, runtime.ErrNotSupported)
		}
		return *w.Tokens, nil
	})
}

// notOffered marks a missing endpoint (404, 405, 501) as ErrNotSupported.
func notOffered(err error, url string) error {
	var ae *APIError
	if errors.As(err, &ae) && (ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusMethodNotAllowed || ae.StatusCode == http.StatusNotImplemented) {
		return fmt.Errorf("%w: the server offers no %s: %w", err, redactURL(url), runtime.ErrNotSupported)
	}
	return err
}

// rollingEcho is lm-eval's TemplateAPI.loglikelihood_rolling: windows of
// max_length-2 predicted tokens (its max_length is the model argument
// minus one for the generated token, and the windows leave one more for
// the context token), each window's context+continuation sent whole as
// token ids, and the continuation's echoed log-probabilities summed
// (token_logprobs[ctxlen:-1], the last being the generated token).
func (c *Client) rollingEcho(ctx context.Context, text string) (runtime.RollingResult, error) {
	tk, err := c.tokenizer(ctx)
	if err != nil {
		return runtime.RollingResult{}, err
	}
	toks, err := c.tokenize(ctx, tk.root, text)
	if err != nil {
		return runtime.RollingResult{}, err
	}
	maxLength := c.opts.MaxLength
	if maxLength == 0 {
		maxLength = defaultMaxLength
	}
	var res runtime.RollingResult
	for wi, w := range runtime.RollingWindows(toks, tk.prefix, maxLength-2) {
		inp := append(append([]int32(nil), w.Context...), w.Continuation...)
		lp, err := c.echoTokens(ctx, inp)
		if err != nil {
			return runtime.RollingResult{}, fmt.Errorf("window %d: %w", wi, err)
		}
		if len(lp) < len(inp) {
			return runtime.RollingResult{}, fmt.Errorf("window %d: %d echoed log-probabilities for a prompt of %d tokens", wi, len(lp), len(inp))
		}
		// lm-eval sums each window's log-probabilities (Python's sum,
		// left to right from 0), then the windows' sums: the same order
		// gives the same float64.
		sum := 0.0
		for p := len(w.Context); p < len(inp); p++ {
			if lp[p] == nil {
				return runtime.RollingResult{}, fmt.Errorf("window %d: prompt token %d has no log-probability", wi, p)
			}
			sum += *lp[p]
		}
		res.LogProb += sum
		res.Tokens += len(w.Continuation)
		res.Windows++
	}
	return res, nil
}

// echoTokens sends a token-id prompt with echo and logprobs, as lm-eval's
// local-completions payload for log-likelihoods, and returns the
// token_logprobs (the prompt's, then the generated token's).
func (c *Client) echoTokens(ctx context.Context, prompt []int32) ([]*float64, error) {
	body := map[string]any{
		"prompt":      [][]int32{prompt},
		"temperature": 0,
		"max_tokens":  1,
		"logprobs":    1,
		"seed":        1234,
		"echo":        true,
	}
	if c.opts.Model != "" {
		body["model"] = c.opts.Model
	}
	return retry(ctx, c, "openai: POST /completions (echo)", func(ctx context.Context) ([]*float64, error) {
		hresp, err := c.post(ctx, "/completions", body, false)
		if err != nil {
			return nil, err
		}
		var w wireResponse
		if err := decodeBody(hresp, &w); err != nil {
			return nil, err
		}
		if len(w.Choices) != 1 {
			return nil, &retryableError{err: fmt.Errorf("malformed response: %d choices for one prompt", len(w.Choices))}
		}
		if w.Choices[0].Logprobs == nil || len(w.Choices[0].Logprobs.TokenLogprobs) == 0 {
			return nil, fmt.Errorf("response has no echoed logprobs: %w", runtime.ErrNotSupported)
		}
		return w.Choices[0].Logprobs.TokenLogprobs, nil
	})
}
