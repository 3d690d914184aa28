// Package openai provides a runtime.Runtime that talks to any
// OpenAI-compatible HTTP server: llama.cpp's llama-server, vLLM, MNN's
// server, `pocketeval serve` running on a phone or board, or OpenAI itself.
//
// Chat requests go to {BaseURL}/chat/completions, raw prompts to
// {BaseURL}/completions. Responses are streamed (server-sent events) so the
// client can measure time to first token; a server that refuses or ignores
// streaming is handled transparently. Engine timings that llama.cpp-style
// servers (and `pocketeval serve`) attach to responses — time to first
// token, prefill and decode speed — are preferred over the client's
// wall-clock measurements, which include the network and the server's
// buffering.
//
// Failures that a retry can fix — HTTP 429 (Retry-After honoured), 408, 5xx
// other than 501, connection errors, attempts that exceed RequestTimeout,
// malformed JSON, answers of the wrong shape ("content": null, a choice
// without text, a stream without any choice) and streams cut off before
// their end — are retried with exponential backoff and jitter up to
// MaxRetries times; when they persist Generate returns the error, so the
// sample is counted as failed, never scored as an empty answer. Everything
// else (400, 401, 404, 422...) fails at once with an *APIError.
//
// The client holds no global locks: concurrent Generate calls proceed in
// parallel and are bounded by the caller (the runner's --concurrency).
//
// A chat response from `pocketeval serve` names the prompt its runtime
// rendered ("pocketeval": {"rendered_prompt": ...}); it becomes the
// Response's RenderedPrompt, so the samples record it as for a local run.
//
// Thinking that a server split off into "reasoning_content" is put back in
// front of the answer as "<think>…</think>", so the text is the model's
// whole output whatever the server's reasoning parser.
//
// The package intentionally does not apply chat templates: a chat request
// is sent as messages and the server templates it. What it can ask of the
// server's template is the reasoning mode: with Options.Thinking on or off
// every chat request carries "chat_template_kwargs": {"enable_thinking":
// true|false}, the field llama-server (with its Jinja templates, the
// default), vLLM and SGLang pass to the model's template; whether the
// server's template reads it cannot be seen from here, and the run
// manifest says so (see Client.Runtime). The API key is sent only in the
// Authorization header and never appears in errors or Describe.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pocketeval/pocketeval/internal/wait"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// Endpoints selectable with Options.Endpoint.
const (
	// EndpointChat sends chat requests to /chat/completions and raw
	// prompts to /completions.
	EndpointChat = "chat"
	// EndpointCompletions accepts raw prompts only (servers without a chat
	// template); chat requests fail with an error wrapping
	// runtime.ErrNotSupported, so the caller must render prompts itself.
	EndpointCompletions = "completions"
)

// Options configure a Client. The zero value of each field is documented.
type Options struct {
	// BaseURL is the API root including any version prefix, e.g.
	// "http://127.0.0.1:8080/v1". Required.
	BaseURL string
	// Model is sent as the request's "model". Empty omits the field
	// (llama.cpp and pocketeval serve accept that; OpenAI does not).
	Model string
	// APIKey is sent as "Authorization: Bearer <key>". Empty sends no
	// Authorization header.
	APIKey string
	// Endpoint is EndpointChat (the default when empty) or
	// EndpointCompletions.
	Endpoint string
	// RequestTimeout bounds one attempt, including reading the whole
	// streamed response. Zero means 10 minutes. An attempt that times out
	// is retried.
	RequestTimeout time.Duration
	// MaxRetries is how many times a failed attempt is retried; zero
	// means no retries.
	MaxRetries int
	// NoStream disables streaming; time to first token is then taken from
	// the server's own timings when it reports them, else unknown.
	NoStream bool
	// BackoffBase is the first retry delay before jitter; zero means
	// 500ms. Each further retry doubles it, up to BackoffMax.
	BackoffBase time.Duration
	// BackoffMax caps the backoff delay; zero means 30s.
	BackoffMax time.Duration
	// MaxRetryAfter caps how long a server's Retry-After is honoured;
	// zero means 2 minutes. Every wait between attempts (Retry-After or
	// back-off) is also capped by RequestTimeout.
	MaxRetryAfter time.Duration
	// OnRetry, when set, is told before each wait between attempts what
	// failed, how long the wait is and why (a line of text); nil says
	// nothing.
	OnRetry func(msg string)
	// MaxLength is lm-eval's max_length for API models: rolling
	// log-likelihoods through completions echo cut texts into windows of
	// MaxLength-2 predicted tokens, so that a window's prompt plus the one
	// generated token fit MaxLength. Zero means lm-eval's default, 2048.
	// pocketeval serve's own endpoint windows by the served runtime's
	// context instead.
	MaxLength int
	// Thinking asks the server's chat template for a reasoning mode: on or
	// off sends "chat_template_kwargs": {"enable_thinking": true|false}
	// with every chat request; the zero value (model-default) sends
	// nothing, and the requests are as without the option. A request's own
	// TemplateKwargs win over it. Raw prompts never carry template
	// variables (no template renders them), so it needs EndpointChat.
	Thinking chattemplate.Thinking
	// HTTPClient sends the requests; nil means a dedicated client with
	// keep-alive connections sized for parallel requests. Its Timeout
	// should be zero: RequestTimeout governs attempts.
	HTTPClient *http.Client
}

// Client is an OpenAI-compatible runtime. It is safe for concurrent use.
type Client struct {
	opts    Options
	base    string // BaseURL without trailing slash
	hc      *http.Client
	timeout time.Duration

	// noStream is set once a server has refused a streaming request, so
	// later requests go straight to the non-streaming form.
	noStream atomic.Bool
	// noStreamOptions is set once a server has refused stream_options
	// (usage in the stream); streaming goes on without it.
	noStreamOptions atomic.Bool
	// loglik caches which log-likelihood method the server offers, and
	// rolling which rolling log-likelihood method.
	loglik  atomic.Int32
	rolling atomic.Int32
	// tok is the server's tokenizer for rolling windows (echo route),
	// learnt once.
	tokMu  sync.Mutex
	tok    *remoteTokenizer
	tokErr error
	closed atomic.Bool
	// server is what Probe learnt, nil before.
	server atomic.Pointer[serverInfo]

	// sleep waits between retries; tests replace it to observe delays.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a value in [0, n); tests replace it.
	jitter func(n int64) int64
}

var (
	_ runtime.Runtime         = (*Client)(nil)
	_ runtime.Describer       = (*Client)(nil)
	_ runtime.LogLikelihooder = (*Client)(nil)
)

// New checks the options and returns a Client. It does not contact the
// server.
func New(opts Options) (*Client, error) {
	if opts.BaseURL == "" {
		return nil, errors.New("openai: base URL is required (e.g. http://127.0.0.1:8080/v1)")
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("openai: parse base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("openai: base URL %q: scheme must be http or https", redactURL(opts.BaseURL))
	}
	switch opts.Endpoint {
	case "":
		opts.Endpoint = EndpointChat
	case EndpointChat, EndpointCompletions:
	default:
		return nil, fmt.Errorf("openai: endpoint %q: must be %q or %q", opts.Endpoint, EndpointChat, EndpointCompletions)
	}
	if _, err := chattemplate.ParseThinking(string(opts.Thinking)); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if opts.Thinking != chattemplate.ThinkingModelDefault && opts.Endpoint == EndpointCompletions {
		return nil, fmt.Errorf("openai: thinking %s: endpoint %q sends raw prompts, which no chat template renders", opts.Thinking, EndpointCompletions)
	}
	if opts.MaxRetries < 0 {
		return nil, fmt.Errorf("openai: max retries %d: must not be negative", opts.MaxRetries)
	}
	if opts.MaxLength < 0 || opts.MaxLength > 0 && opts.MaxLength < 3 {
		return nil, fmt.Errorf("openai: max length %d: must be at least 3 (0: 2048)", opts.MaxLength)
	}
	if opts.RequestTimeout < 0 {
		return nil, fmt.Errorf("openai: request timeout %v: must not be negative", opts.RequestTimeout)
	}
	c := &Client{
		opts:    opts,
		base:    strings.TrimRight(opts.BaseURL, "/"),
		hc:      opts.HTTPClient,
		timeout: opts.RequestTimeout,
		sleep:   wait.Sleep,
		jitter:  rand.Int64N,
	}
	if c.timeout == 0 {
		c.timeout = 10 * time.Minute
	}
	if c.hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		c.hc = &http.Client{Transport: tr}
	}
	if opts.NoStream {
		c.noStream.Store(true)
	}
	return c, nil
}

// Close releases idle connections. It is idempotent.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.hc.CloseIdleConnections()
	return nil
}

// Describe reports the server and settings for the run manifest. The API
// key is never included; credentials in the URL are redacted.
//
// After Probe, it also records the models the server lists and, when the
// server is `pocketeval serve`, the runtime behind it (engine, version,
// threads, backend...), whose version becomes Info.Version.
func (c *Client) Describe() runtime.Info {
	info := runtime.Info{
		Name:  "openai",
		Model: c.opts.Model,
		Settings: map[string]any{
			"base_url":        redactURL(c.base),
			"endpoint":        c.opts.Endpoint,
			"stream":          !c.noStream.Load(),
			"request_timeout": c.timeout.String(),
			"max_retries":     c.opts.MaxRetries,
			"api_key_set":     c.opts.APIKey != "",
		},
	}
	if s := c.server.Load(); s != nil {
		info.Settings["server_models"] = s.Models
		if s.Runtime != nil {
			info.Settings["server_runtime"] = *s.Runtime
			info.Version = s.Runtime.Version
		}
	}
	return info
}

// Generate sends one request, retrying transient failures.
func (c *Client) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if c.closed.Load() {
		return runtime.Response{}, errors.New("openai: generate: client is closed")
	}
	chat := req.IsChat()
	if chat && req.Prompt != "" {
		return runtime.Response{}, errors.New("openai: generate: request has both messages and a prompt")
	}
	if chat && c.opts.Endpoint == EndpointCompletions {
		return runtime.Response{}, fmt.Errorf("openai: generate: chat request with endpoint %q (render a raw prompt instead): %w", EndpointCompletions, runtime.ErrNotSupported)
	}
	path := "/completions"
	if chat {
		path = "/chat/completions"
	}
	op := "openai: POST " + path
	resp, err := retry(ctx, c, op, func(ctx context.Context) (runtime.Response, error) {
		// Tool calls are read from whole answers, not streamed deltas.
		stream := !c.noStream.Load() && !toolcall.HasTools(req)
		r, err := c.generateOnce(ctx, path, chat, req, stream)
		if stream && !c.noStreamOptions.Load() && refuses(err, "stream_options") {
			c.noStreamOptions.Store(true)
			r, err = c.generateOnce(ctx, path, chat, req, true)
		}
		if stream && refuses(err, "stream") {
			// The server does not stream; remember and go on without
			// spending a retry.
			c.noStream.Store(true)
			r, err = c.generateOnce(ctx, path, chat, req, false)
		}
		return r, err
	})
	if err != nil {
		return runtime.Response{}, err
	}
	return resp, nil
}

// generateOnce is one attempt.
func (c *Client) generateOnce(ctx context.Context, path string, chat bool, req runtime.Request, stream bool) (runtime.Response, error) {
	body := c.requestBody(chat, req, stream)
	start := time.Now()
	hresp, err := c.post(ctx, path, body, stream)
	if err != nil {
		return runtime.Response{}, err
	}
	defer hresp.Body.Close()
	var res result
	// Trust the content type over what was asked: some servers ignore
	// "stream" one way or the other.
	if isEventStream(hresp.Header.Get("Content-Type")) {
		res, err = readStream(hresp.Body, chat, start)
	} else {
		res, err = readJSON(hresp.Body, chat)
	}
	if err != nil {
		return runtime.Response{}, err
	}
	total := time.Since(start)
	return res.response(total), nil
}

func (c *Client) requestBody(chat bool, req runtime.Request, stream bool) map[string]any {
	b := map[string]any{}
	if c.opts.Model != "" {
		b["model"] = c.opts.Model
	}
	if chat {
		msgs := make([]wireMessage, len(req.Messages))
		for i, m := range req.Messages {
			msgs[i] = wireMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
			for _, tc := range m.ToolCalls {
				w := wireToolCall{ID: tc.ID, Type: "function"}
				w.Function.Name, w.Function.Arguments = tc.Name, tc.Arguments
				msgs[i].ToolCalls = append(msgs[i].ToolCalls, w)
			}
		}
		b["messages"] = msgs
		if toolcall.HasTools(req) {
			b["tools"] = req.Tools
			if len(req.ToolChoice) > 0 {
				b["tool_choice"] = req.ToolChoice
			}
		}
		if kw := c.templateKwargs(req); kw != nil {
			b["chat_template_kwargs"] = kw
		}
	} else {
		b["prompt"] = req.Prompt
	}
	g := req.Gen
	// Temperature is always sent: the zero value means greedy here, while
	// OpenAI-compatible servers default to 1.
	b["temperature"] = g.Temperature
	if g.MaxTokens > 0 {
		b["max_tokens"] = g.MaxTokens
	}
	if g.TopP > 0 {
		b["top_p"] = g.TopP
	}
	b["seed"] = g.Seed
	if len(g.Stop) > 0 {
		b["stop"] = g.Stop
	}
	if stream {
		b["stream"] = true
		if !c.noStreamOptions.Load() {
			b["stream_options"] = map[string]any{"include_usage": true}
		}
	}
	return b
}

// post sends body as JSON and returns the response when the status is 200;
// any other status becomes an *APIError (retryable as classified).
func (c *Client) post(ctx context.Context, path string, body any, stream bool) (*http.Response, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	return c.do(ctx, http.MethodPost, path, data, stream)
}

// do sends one request; body nil means none.
func (c *Client) do(ctx context.Context, method, path string, body []byte, stream bool) (*http.Response, error) {
	return c.doURL(ctx, method, c.base+path, body, stream)
}

// doURL is do for a whole URL (the server's root endpoints).
func (c *Client) doURL(ctx context.Context, method, url string, body []byte, stream bool) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	if stream {
		hreq.Header.Set("Accept", "text/event-stream")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if c.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	hresp, err := c.hc.Do(hreq)
	if err != nil {
		return nil, transportError(err)
	}
	if hresp.StatusCode != http.StatusOK {
		defer hresp.Body.Close()
		return nil, newAPIError(hresp)
	}
	return hresp, nil
}

// transportError classifies an error from sending a request or reading its
// body. Context errors pass through unchanged so retry can tell an attempt
// timeout from the caller's cancellation.
func transportError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // drop the URL: it may carry credentials
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &retryableError{err: fmt.Errorf("connection: %w", err)}
}

func isEventStream(ct string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/event-stream")
}

// refuses reports whether err is a server's rejection of a parameter: a
// 400, 422 or 501 whose message mentions param.
func refuses(err error, param string) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.StatusCode {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusNotImplemented:
		return strings.Contains(strings.ToLower(ae.Message), param)
	}
	return false
}

// result is what one response (streamed or not) said.
type result struct {
	text             string
	toolCalls        []runtime.ToolCall
	finish           string
	promptTokens     int
	completionTokens int
	ttft             time.Duration // client-measured, streaming only
	server           *runtime.ServerTimings
	rendered         string // the prompt the server rendered, if it says (pocketeval serve)
	raw              string // the text the server parsed toolCalls out of, if it says (pocketeval serve)
}

func (r result) response(total time.Duration) runtime.Response {
	resp := runtime.Response{
		Text:             r.text,
		ToolCalls:        r.toolCalls,
		FinishReason:     mapFinish(r.finish),
		PromptTokens:     r.promptTokens,
		CompletionTokens: r.completionTokens,
		RenderedPrompt:   r.rendered,
		Raw:              r.raw,
	}
	t := runtime.Timings{Total: total, TimeToFirstToken: r.ttft}
	if s := r.server; s != nil {
		// The engine's own numbers exclude the network and the
		// server's queueing.
		if s.PromptPerSecond > 0 {
			t.PrefillTokPerSec = s.PromptPerSecond
		}
		if s.PredictedPerSecond > 0 {
			t.DecodeTokPerSec = s.PredictedPerSecond
		}
		// The engine's TTFT, not the client's: through a server
		// that sends the answer in one piece the client would see
		// the whole generation time.
		if s.PromptMS > 0 {
			t.TimeToFirstToken = time.Duration(s.PromptMS * float64(time.Millisecond))
		}
		if resp.PromptTokens == 0 && s.PromptN > 0 {
			resp.PromptTokens = s.PromptN
		}
		if resp.CompletionTokens == 0 && s.PredictedN > 0 {
			resp.CompletionTokens = s.PredictedN
		}
	}
	if t.PrefillTokPerSec == 0 && r.ttft > 0 && resp.PromptTokens > 0 {
		t.PrefillTokPerSec = float64(resp.PromptTokens) / r.ttft.Seconds()
	}
	if dec := total - r.ttft; t.DecodeTokPerSec == 0 && r.ttft > 0 && resp.CompletionTokens > 1 && dec >= time.Millisecond {
		t.DecodeTokPerSec = float64(resp.CompletionTokens-1) / dec.Seconds()
	}
	resp.Timings = t
	return resp
}

// mapFinish maps the finish reasons servers use onto runtime's. Unknown
// reasons (content_filter, tool_calls) pass through; a missing one is
// "stop" (the generation ended without hitting the limit as far as the
// server said).
func mapFinish(s string) string {
	switch strings.ToLower(s) {
	case "", "stop", "eos", "stop_sequence", "end_turn", "eos_token", "tool_calls":
		return runtime.FinishStop
	case "length", "max_tokens", "model_length":
		return runtime.FinishLength
	}
	return s
}

// redactURL removes user info and query from a URL for display.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
