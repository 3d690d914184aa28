package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/runtime"
)

// Log-likelihood methods, cached in Client.loglik after the first probe.
const (
	llUnknown   int32 = iota
	llExtension       // POST {base}/loglikelihood (pocketeval serve)
	llEcho            // POST {base}/completions with echo + logprobs
	llNone            // the server offers neither
)

// LoglikPath is the pocketeval extension endpoint, relative to the base
// URL, that `pocketeval serve` offers for runtimes with exact
// log-likelihoods. Body: {"model", "requests": [{"context",
// "continuation"}]}; answer: {"results": [{"logprob", "is_greedy",
// "tokens"}]}.
const LoglikPath = "/loglikelihood"

// LoglikRequestBody is the body of a LoglikPath request.
type LoglikRequestBody struct {
	Model    string                  `json:"model,omitempty"`
	Requests []runtime.LoglikRequest `json:"requests"`
}

// LoglikResponseBody is the answer to a LoglikPath request.
type LoglikResponseBody struct {
	Object  string                 `json:"object"`
	Results []runtime.LoglikResult `json:"results"`
}

// LogLikelihood scores each continuation. It uses the pocketeval extension
// endpoint when the server has it (exact, batched), else /completions with
// echo and logprobs (one request per item, the way OpenAI's legacy
// completions, vLLM and others offer it). When the server offers neither
// the error wraps runtime.ErrNotSupported. An empty batch probes the
// server (once) and reports only whether log-likelihoods are available.
//
// With echo, the continuation's tokens are those the server's tokenizer
// produced over context+continuation that end after the context; a token
// straddling the boundary is counted with the continuation. Text offsets
// are in characters, as OpenAI reports them.
func (c *Client) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	if len(reqs) == 0 {
		// An empty batch asks whether log-likelihoods are available:
		// probe the server once and answer nil or ErrNotSupported.
		if c.loglik.Load() == llUnknown {
			_, err := c.LogLikelihood(ctx, []runtime.LoglikRequest{{Context: "Hello", Continuation: " world"}})
			if err != nil && !errors.Is(err, runtime.ErrNotSupported) {
				return nil, err
			}
		}
		if c.loglik.Load() == llNone {
			return nil, fmt.Errorf("openai: log-likelihood: the server at %s offers neither %s nor completions echo+logprobs: %w", redactURL(c.base), LoglikPath, runtime.ErrNotSupported)
		}
		return nil, nil
	}
	mode := c.loglik.Load()
	if mode == llUnknown || mode == llExtension {
		res, err := c.loglikExtension(ctx, reqs)
		if err == nil {
			c.loglik.Store(llExtension)
			return res, nil
		}
		if !errors.Is(err, runtime.ErrNotSupported) {
			return nil, err
		}
		c.loglik.CompareAndSwap(llUnknown, llEcho)
		mode = c.loglik.Load()
	}
	if mode == llNone {
		return nil, fmt.Errorf("openai: log-likelihood: the server at %s offers neither %s nor completions echo+logprobs: %w", redactURL(c.base), LoglikPath, runtime.ErrNotSupported)
	}
	out := make([]runtime.LoglikResult, len(reqs))
	for i, r := range reqs {
		res, err := c.loglikEcho(ctx, r)
		if err != nil {
			var ae *APIError
			badRequest := errors.As(err, &ae) && (ae.StatusCode == http.StatusBadRequest || ae.StatusCode == http.StatusUnprocessableEntity) &&
				!strings.Contains(strings.ToLower(ae.Message), "echo") && !strings.Contains(strings.ToLower(ae.Message), "logprobs")
			if errors.Is(err, runtime.ErrNotSupported) && !badRequest {
				// A 400 may be about this one request (too long),
				// so only a missing endpoint or missing logprobs
				// disables the method for the run.
				c.loglik.Store(llNone)
			}
			return nil, fmt.Errorf("openai: log-likelihood of request %d: %w", i, err)
		}
		out[i] = res
	}
	return out, nil
}

func (c *Client) loglikExtension(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	body := LoglikRequestBody{Model: c.opts.Model, Requests: reqs}
	return retry(ctx, c, "openai: POST "+LoglikPath, func(ctx context.Context) ([]runtime.LoglikResult, error) {
		hresp, err := c.post(ctx, LoglikPath, body, false)
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) && (ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusMethodNotAllowed || ae.StatusCode == http.StatusNotImplemented) {
				return nil, fmt.Errorf("%w: %w", err, runtime.ErrNotSupported)
			}
			return nil, err
		}
		var w LoglikResponseBody
		if err := decodeBody(hresp, &w); err != nil {
			return nil, err
		}
		if len(w.Results) != len(reqs) {
			return nil, fmt.Errorf("server returned %d results for %d requests", len(w.Results), len(reqs))
		}
		return w.Results, nil
	})
}

func (c *Client) loglikEcho(ctx context.Context, r runtime.LoglikRequest) (runtime.LoglikResult, error) {
	if r.Context == "" {
		return runtime.LoglikResult{}, errors.New("empty context: the first token of an echoed prompt has no log-probability")
	}
	full := r.Context + r.Continuation
	body := map[string]any{
		"prompt":      full,
		"echo":        true,
		"logprobs":    1,
		"max_tokens":  1, // some servers reject 0; the generated token is ignored
		"temperature": 0,
	}
	if c.opts.Model != "" {
		body["model"] = c.opts.Model
	}
	lp, err := retry(ctx, c, "openai: POST /completions (echo)", func(ctx context.Context) (*wireLogprobs, error) {
		hresp, err := c.post(ctx, "/completions", body, false)
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) && !ae.Temporary() && ae.StatusCode != http.StatusUnauthorized && ae.StatusCode != http.StatusForbidden {
				return nil, fmt.Errorf("%w: %w", err, runtime.ErrNotSupported)
			}
			return nil, err
		}
		var w wireResponse
		if err := decodeBody(hresp, &w); err != nil {
			return nil, err
		}
		if len(w.Choices) == 0 {
			return nil, &retryableError{err: errors.New("malformed response: no choices")}
		}
		ch := w.Choices[0]
		if ch.Logprobs == nil || len(ch.Logprobs.Tokens) == 0 {
			return nil, fmt.Errorf("response has no echoed logprobs: %w", runtime.ErrNotSupported)
		}
		if ch.Text == nil || !strings.HasPrefix(*ch.Text, full) {
			return nil, fmt.Errorf("the server did not echo the prompt: %w", runtime.ErrNotSupported)
		}
		return w.Choices[0].Logprobs, nil
	})
	if err != nil {
		return runtime.LoglikResult{}, err
	}
	return continuationLoglik(lp, utf8.RuneCountInString(r.Context), utf8.RuneCountInString(full))
}

// continuationLoglik sums the log-probabilities of the tokens that end
// after ctxLen and start before fullLen (character offsets).
func continuationLoglik(lp *wireLogprobs, ctxLen, fullLen int) (runtime.LoglikResult, error) {
	n := len(lp.Tokens)
	if len(lp.TokenLogprobs) != n {
		return runtime.LoglikResult{}, fmt.Errorf("malformed logprobs: %d tokens but %d token_logprobs", n, len(lp.TokenLogprobs))
	}
	offsets := lp.TextOffset
	if len(offsets) != n {
		offsets = make([]int, n)
		pos := 0
		for i, t := range lp.Tokens {
			offsets[i] = pos
			pos += utf8.RuneCountInString(t)
		}
	}
	res := runtime.LoglikResult{IsGreedy: true}
	for i := 0; i < n; i++ {
		start := offsets[i]
		end := start + utf8.RuneCountInString(lp.Tokens[i])
		if i+1 < n && offsets[i+1] > start {
			end = offsets[i+1]
		}
		if start >= fullLen || end <= ctxLen {
			continue
		}
		p := lp.TokenLogprobs[i]
		if p == nil {
			return runtime.LoglikResult{}, fmt.Errorf("token %d (%q) has no log-probability", i, lp.Tokens[i])
		}
		res.LogProb += *p
		res.Tokens++
		if i < len(lp.TopLogprobs) && lp.TopLogprobs[i] != nil {
			best := math.Inf(-1)
			for _, v := range lp.TopLogprobs[i] {
				best = math.Max(best, v)
			}
			if *p < best-1e-9 {
				res.IsGreedy = false
			}
		} else {
			// Without the top alternatives greediness is unknown;
			// report false rather than guess.
			res.IsGreedy = false
		}
	}
	if res.Tokens == 0 {
		return runtime.LoglikResult{}, errors.New("no continuation tokens in the echoed prompt")
	}
	return res, nil
}

// decodeBody reads a response's body (at most maxBody bytes) into v and
// closes it; a body that is not JSON of v's shape is a retryable error.
func decodeBody(hresp *http.Response, v any) error {
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody))
	if err != nil {
		return readError(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &retryableError{err: fmt.Errorf("malformed JSON response: %w", err)}
	}
	return nil
}
