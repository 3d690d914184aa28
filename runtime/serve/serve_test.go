package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/golden"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
	"github.com/pocketeval/pocketeval/runtime/serve/internal/fake"
)

// plain hides the fake's Streamer and LogLikelihooder methods.
type plain struct{ rt *fake.Runtime }

func (p plain) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return p.rt.Generate(ctx, req)
}
func (p plain) Close() error { return nil }

func newServer(t *testing.T, rt runtime.Runtime, opts Options) (*Handler, *httptest.Server) {
	t.Helper()
	if opts.Seed == nil {
		opts.Seed = func() int64 { return 42 }
	}
	h := New(rt, opts)
	h.idBase = "test"
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

func newClient(t *testing.T, url string, mod func(*openai.Options)) *openai.Client {
	t.Helper()
	o := openai.Options{BaseURL: url + "/v1", Model: "fake", RequestTimeout: 10 * time.Second}
	if mod != nil {
		mod(&o)
	}
	c, err := openai.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var roundTripRequests = []struct {
	name string
	req  runtime.Request
}{
	{"chat", runtime.Request{Messages: []runtime.Message{{Role: "system", Content: "be nice"}, {Role: "user", Content: "one two three"}}}},
	{"chat max tokens", runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "a b c d e f"}}, Gen: runtime.GenConfig{MaxTokens: 3}}},
	{"chat stop", runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "alpha beta gamma"}}, Gen: runtime.GenConfig{Stop: []string{" beta"}, Temperature: 0.5, TopP: 0.9, Seed: 7}}},
	{"chat unicode", runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "你好 世界 ünïcode\n\"quoted\""}}}},
	{"chat empty answer", runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "x"}}, Gen: runtime.GenConfig{Stop: []string{"echo"}}}},
	{"raw", runtime.Request{Prompt: "def f(x):\n    return"}},
	{"raw max tokens", runtime.Request{Prompt: "1 2 3 4 5", Gen: runtime.GenConfig{MaxTokens: 2}}},
}

// TestRoundTrip is the key property: a runtime served over HTTP and read
// back through the openai runtime gives the same Response as calling it
// directly (text, finish reason, token counts), streamed or not, whether
// or not the runtime streams.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	direct := &fake.Runtime{}
	for _, served := range []struct {
		name string
		rt   runtime.Runtime
	}{{"streamer", &fake.Runtime{}}, {"plain", plain{&fake.Runtime{}}}} {
		_, srv := newServer(t, served.rt, Options{MaxConcurrent: 2})
		for _, noStream := range []bool{false, true} {
			c := newClient(t, srv.URL, func(o *openai.Options) { o.NoStream = noStream })
			for _, tt := range roundTripRequests {
				name := served.name + "/" + map[bool]string{false: "stream", true: "nostream"}[noStream] + "/" + tt.name
				t.Run(name, func(t *testing.T) {
					want, err := direct.Generate(context.Background(), tt.req)
					if err != nil {
						t.Fatal(err)
					}
					got, err := c.Generate(context.Background(), tt.req)
					if err != nil {
						t.Fatal(err)
					}
					if got.Text != want.Text || got.FinishReason != want.FinishReason ||
						got.PromptTokens != want.PromptTokens || got.CompletionTokens != want.CompletionTokens {
						t.Errorf("through HTTP: %q %s %d/%d\n        direct: %q %s %d/%d",
							got.Text, got.FinishReason, got.PromptTokens, got.CompletionTokens,
							want.Text, want.FinishReason, want.PromptTokens, want.CompletionTokens)
					}
				})
			}
		}
	}
}

func TestLogLikelihoodRoundTrip(t *testing.T) {
	t.Parallel()
	reqs := []runtime.LoglikRequest{{Context: "The answer is", Continuation: " B"}, {Context: "x", Continuation: "yz w"}}
	direct := &fake.Runtime{}
	want, _ := direct.LogLikelihood(context.Background(), reqs)
	_, srv := newServer(t, &fake.Runtime{}, Options{})
	got, err := newClient(t, srv.URL, nil).LogLikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("through HTTP %v, direct %v", got, want)
	}

	_, srv = newServer(t, plain{&fake.Runtime{}}, Options{})
	_, err = newClient(t, srv.URL, nil).LogLikelihood(context.Background(), reqs)
	if !errors.Is(err, runtime.ErrNotSupported) {
		t.Errorf("runtime without log-likelihood: error = %v, want ErrNotSupported", err)
	}
}

type httpCase struct {
	name       string
	method     string
	path       string
	body       string
	header     map[string]string
	wantStatus int
	wantParam  string // error.param, "" for none
	wantIn     string // substring of the body
}

func doCase(t *testing.T, url string, tt httpCase) {
	t.Helper()
	method := tt.method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, url+tt.path, strings.NewReader(tt.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range tt.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != tt.wantStatus {
		t.Errorf("status = %d, want %d; body %s", resp.StatusCode, tt.wantStatus, body)
	}
	if !strings.Contains(string(body), tt.wantIn) {
		t.Errorf("body %s does not contain %q", body, tt.wantIn)
	}
	if tt.wantStatus >= 400 {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("error content type = %q, want application/json", ct)
		}
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Param   *string `json:"param"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" {
			t.Errorf("error body %s is not an OpenAI-style error", body)
		}
		got := ""
		if e.Error.Param != nil {
			got = *e.Error.Param
		}
		if got != tt.wantParam {
			t.Errorf("error.param = %q, want %q", got, tt.wantParam)
		}
	}
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, &fake.Runtime{}, Options{Model: "pocket-0.3b", MaxBodyBytes: 4096})
	const user = `"messages":[{"role":"user","content":"hi there"}]`
	tests := []httpCase{
		{name: "health", method: "GET", path: "/health", wantStatus: 200, wantIn: `{"status":"ok"}`},
		{name: "models", method: "GET", path: "/v1/models", wantStatus: 200, wantIn: `"id":"pocket-0.3b"`},
		{name: "models without v1", method: "GET", path: "/models", wantStatus: 200, wantIn: `"object":"list"`},
		{name: "chat", path: "/v1/chat/completions", body: `{` + user + `}`, wantStatus: 200, wantIn: `"content":"echo: there hi"`},
		{name: "chat parts", path: "/v1/chat/completions", body: `{"messages":[{"role":"developer","content":"s"},{"role":"user","content":[{"type":"text","text":"a "},{"type":"text","text":"b"}]}]}`, wantStatus: 200, wantIn: `"content":"echo: b a"`},
		{name: "chat usage", path: "/v1/chat/completions", body: `{` + user + `,"max_completion_tokens":2}`, wantStatus: 200, wantIn: `"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}`},
		{name: "completion echo", path: "/v1/completions", body: `{"prompt":"x y","echo":true}`, wantStatus: 200, wantIn: `"text":"x yecho: y x"`},
		{name: "completion prompt array", path: "/v1/completions", body: `{"prompt":["x y"]}`, wantStatus: 200, wantIn: `"text":"echo: y x"`},
		{name: "trailing data", path: "/v1/completions", body: `{"prompt":"x"} {"prompt":"y"}`, wantStatus: 400, wantIn: "data after the object"},
		{name: "trailing space ok", path: "/v1/completions", body: "{\"prompt\":\"x\"}\n\n", wantStatus: 200},
		{name: "not an object", path: "/v1/completions", body: `["x"]`, wantStatus: 400, wantIn: "invalid JSON"},
		{name: "bad json", path: "/v1/chat/completions", body: `{"messages":`, wantStatus: 400, wantIn: "invalid JSON"},
		{name: "wrong type", path: "/v1/chat/completions", body: `{"messages":[],"temperature":"hot"}`, wantStatus: 400, wantParam: "temperature", wantIn: "must be a number"},
		{name: "no messages", path: "/v1/chat/completions", body: `{"model":"m"}`, wantStatus: 400, wantParam: "messages"},
		{name: "bad role", path: "/v1/chat/completions", body: `{"messages":[{"role":"critic","content":"x"}]}`, wantStatus: 400, wantParam: "messages[0].role"},
		{name: "missing content", path: "/v1/chat/completions", body: `{"messages":[{"role":"user"}]}`, wantStatus: 400, wantParam: "messages[0].content"},
		{name: "image part", path: "/v1/chat/completions", body: `{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, wantStatus: 400, wantParam: "messages[0].content[0]"},
		{name: "temperature range", path: "/v1/chat/completions", body: `{` + user + `,"temperature":2.5}`, wantStatus: 400, wantParam: "temperature"},
		{name: "top_p range", path: "/v1/chat/completions", body: `{` + user + `,"top_p":0}`, wantStatus: 400, wantParam: "top_p"},
		{name: "max_tokens", path: "/v1/chat/completions", body: `{` + user + `,"max_tokens":0}`, wantStatus: 400, wantParam: "max_tokens"},
		{name: "n", path: "/v1/chat/completions", body: `{` + user + `,"n":3}`, wantStatus: 400, wantParam: "n"},
		{name: "penalty", path: "/v1/chat/completions", body: `{` + user + `,"presence_penalty":0.5}`, wantStatus: 400, wantParam: "presence_penalty"},
		{name: "penalty zero ok", path: "/v1/chat/completions", body: `{` + user + `,"presence_penalty":0,"n":1}`, wantStatus: 200},
		{name: "stop empty", path: "/v1/chat/completions", body: `{` + user + `,"stop":["a",""]}`, wantStatus: 400, wantParam: "stop[1]"},
		{name: "stop number", path: "/v1/chat/completions", body: `{` + user + `,"stop":5}`, wantStatus: 400, wantParam: "stop"},
		{name: "chat logprobs", path: "/v1/chat/completions", body: `{` + user + `,"logprobs":true}`, wantStatus: 400, wantParam: "logprobs"},
		{name: "stream_options without stream", path: "/v1/chat/completions", body: `{` + user + `,"stream_options":{"include_usage":true}}`, wantStatus: 400, wantParam: "stream_options"},
		{name: "token prompt", path: "/v1/completions", body: `{"prompt":[1,2,3]}`, wantStatus: 400, wantParam: "prompt"},
		{name: "batched prompt", path: "/v1/completions", body: `{"prompt":["a","b"]}`, wantStatus: 400, wantParam: "prompt", wantIn: "batched"},
		{name: "completion logprobs", path: "/v1/completions", body: `{"prompt":"a","logprobs":1}`, wantStatus: 400, wantParam: "logprobs", wantIn: "/v1/loglikelihood"},
		{name: "loglikelihood", path: "/v1/loglikelihood", body: `{"requests":[{"context":"a","continuation":" bc"}]}`, wantStatus: 200, wantIn: `"results":[{"logprob":-3,"is_greedy":true,"tokens":1}]`},
		{name: "loglikelihood probe", path: "/v1/loglikelihood", body: `{"requests":[]}`, wantStatus: 200, wantIn: `"results":[]`},
		{name: "loglikelihood no requests", path: "/v1/loglikelihood", body: `{}`, wantStatus: 400, wantParam: "requests"},
		{name: "loglikelihood empty context", path: "/v1/loglikelihood", body: `{"requests":[{"context":"","continuation":"x"}]}`, wantStatus: 400, wantParam: "requests[0].context"},
		{name: "runtime failure", path: "/v1/chat/completions", body: `{"messages":[{"role":"user","content":"FAIL"}]}`, wantStatus: 500, wantIn: "injected failure"},
		{name: "runtime unsupported", path: "/v1/completions", body: `{"prompt":"UNSUPPORTED"}`, wantStatus: 400, wantIn: "not supported"},
		{name: "wrong method", method: "GET", path: "/v1/chat/completions", wantStatus: 405},
		{name: "unknown path", method: "GET", path: "/v1/embeddings", wantStatus: 404},
		{name: "form content type", path: "/v1/completions", body: `{"prompt":"x"}`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, wantStatus: 200},
		{name: "form body", path: "/v1/completions", body: `prompt=x`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, wantStatus: 400, wantIn: "invalid JSON"},
		{name: "too large", path: "/v1/completions", body: `{"prompt":"` + strings.Repeat("x", 5000) + `"}`, wantStatus: 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doCase(t, srv.URL, tt)
		})
	}
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, &fake.Runtime{}, Options{APIKey: "s3cret"})
	body := `{"prompt":"a"}`
	doCase(t, srv.URL, httpCase{path: "/v1/completions", body: body, wantStatus: 401})
	doCase(t, srv.URL, httpCase{path: "/v1/completions", body: body, header: map[string]string{"Authorization": "Bearer nope"}, wantStatus: 401})
	doCase(t, srv.URL, httpCase{path: "/v1/completions", body: body, header: map[string]string{"Authorization": "Bearer s3cret"}, wantStatus: 200})
	doCase(t, srv.URL, httpCase{method: "GET", path: "/health", wantStatus: 200})
	c := newClient(t, srv.URL, func(o *openai.Options) { o.APIKey = "s3cret" })
	if _, err := c.Generate(context.Background(), runtime.Request{Prompt: "a"}); err != nil {
		t.Errorf("client with key: %v", err)
	}
}

// TestStreamGolden pins the exact SSE bytes of a streamed chat and
// completion.
func TestStreamGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, path, body string }{
		{"chat_stream", "/v1/chat/completions", `{"messages":[{"role":"user","content":"one two"}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":2}`},
		{"completion_stream", "/v1/completions", `{"prompt":"p q","stream":true,"echo":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := New(plainTimings{}, Options{Model: "golden", Now: func() time.Time { return time.Unix(1700000000, 0) }, Seed: func() int64 { return 42 }})
			h.idBase = "test"
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("POST", tt.path, strings.NewReader(tt.body)))
			if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("content type = %q", ct)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), rec.Body.Bytes())
		})
	}
}

// plainTimings is a Streamer with fixed timings, for golden output.
type plainTimings struct{}

func (plainTimings) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return plainTimings{}.GenerateStream(ctx, req, func(string) error { return nil })
}
func (plainTimings) Close() error { return nil }
func (plainTimings) GenerateStream(ctx context.Context, req runtime.Request, emit func(string) error) (runtime.Response, error) {
	r, err := (&fake.Runtime{}).GenerateStream(ctx, req, emit)
	r.Timings = runtime.Timings{TimeToFirstToken: 40 * time.Millisecond, Total: 90 * time.Millisecond, PrefillTokPerSec: 75, DecodeTokPerSec: 20}
	return r, err
}

func TestMidStreamErrorIsRetried(t *testing.T) {
	t.Parallel()
	rt := &failingStreamer{}
	_, srv := newServer(t, rt, Options{})
	c := newClient(t, srv.URL, func(o *openai.Options) { o.MaxRetries = 1; o.BackoffBase = time.Millisecond })
	_, err := c.Generate(context.Background(), runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "x"}}})
	if err == nil || !strings.Contains(err.Error(), "engine crashed") {
		t.Fatalf("error = %v, want the server's stream error", err)
	}
	if rt.calls.Load() != 2 {
		t.Errorf("calls = %d, want 2 (one retry)", rt.calls.Load())
	}
}

type failingStreamer struct{ calls atomicInt }

type atomicInt struct {
	mu sync.Mutex
	n  int
}

func (a *atomicInt) Add() { a.mu.Lock(); a.n++; a.mu.Unlock() }
func (a *atomicInt) Load() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

func (f *failingStreamer) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return runtime.Response{}, errors.New("unused")
}
func (f *failingStreamer) Close() error { return nil }
func (f *failingStreamer) GenerateStream(ctx context.Context, req runtime.Request, emit func(string) error) (runtime.Response, error) {
	f.calls.Add()
	if err := emit("partial"); err != nil {
		return runtime.Response{}, err
	}
	return runtime.Response{}, errors.New("engine crashed")
}

// TestConcurrencyBound: with one slot and a queue of one, a third request
// is refused with 429 while the first runs and the second waits.
func TestConcurrencyBound(t *testing.T) {
	t.Parallel()
	rt := &fake.Runtime{Gate: make(chan struct{}), Started: make(chan struct{}, 4)}
	h, srv := newServer(t, rt, Options{MaxConcurrent: 1, MaxQueue: 1})
	body := `{"prompt":"a b"}`
	post := func() (int, http.Header) {
		resp, err := http.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, resp.Header
	}
	codes := make(chan int, 2)
	go func() { c, _ := post(); codes <- c }()
	<-rt.Started // first is generating
	go func() { c, _ := post(); codes <- c }()
	for h.waiting.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	code, hdr := post()
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Errorf("third request: status %d Retry-After %q, want 429 with Retry-After", code, hdr.Get("Retry-After"))
	}
	rt.Gate <- struct{}{}
	<-rt.Started // second got the slot only after the first finished
	rt.Gate <- struct{}{}
	for range 2 {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("queued request: status %d, want 200", c)
		}
	}
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		release   bool // let the in-flight request finish within grace
		force     bool // force the shutdown (second signal)
		wantServe bool // Serve returns nil
	}{{"drains", true, false, true}, {"grace exceeded", false, false, false}, {"forced", false, true, false}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rt := &fake.Runtime{Gate: make(chan struct{}), Started: make(chan struct{}, 1)}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			grace := time.Minute
			if !tt.release {
				grace = 50 * time.Millisecond
			}
			if tt.force {
				grace = time.Hour
			}
			force := make(chan struct{})
			started := make(chan struct{})
			served := make(chan error, 1)
			go func() {
				served <- Serve(ctx, ln, New(rt, Options{}), ShutdownOptions{Grace: grace, Force: force, Started: func() { close(started) }})
			}()
			url := "http://" + ln.Addr().String()
			type result struct {
				code int
				body string
				err  error
			}
			inflight := make(chan result, 1)
			go func() {
				resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b"}`))
				if err != nil {
					inflight <- result{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				inflight <- result{resp.StatusCode, string(b), err}
			}()
			<-rt.Started
			cancel()
			// Once shutdown has begun, new connections are refused.
			for {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					break
				}
				c.Close()
				time.Sleep(time.Millisecond)
			}
			<-started
			if tt.release {
				rt.Gate <- struct{}{}
			}
			if tt.force {
				close(force)
			}
			serr := <-served
			if (serr == nil) != tt.wantServe {
				t.Errorf("Serve = %v, want nil: %v", serr, tt.wantServe)
			}
			res := <-inflight
			if tt.release && (res.err != nil || res.code != 200 || !strings.Contains(res.body, "echo: b a")) {
				t.Errorf("in-flight request: %d %q %v, want it completed", res.code, res.body, res.err)
			}
			if !tt.release && res.err == nil && res.code == 200 {
				t.Errorf("in-flight request completed after grace expired: %q", res.body)
			}
		})
	}
}

// TestConformanceThroughHTTP runs the runtime conformance suite against
// the openai runtime talking to a served runtimetest.Fake: the pair must
// behave like a runtime itself (determinism, stop strings, max tokens,
// cancellation, log-likelihood, Close).
func TestConformanceThroughHTTP(t *testing.T) {
	t.Parallel()
	for _, noStream := range []bool{false, true} {
		t.Run(map[bool]string{false: "stream", true: "nostream"}[noStream], func(t *testing.T) {
			t.Parallel()
			_, srv := newServer(t, &runtimetest.Fake{TokenDelay: time.Millisecond, EOSEvery: 7}, Options{MaxConcurrent: 4})
			c := newClient(t, srv.URL, func(o *openai.Options) { o.NoStream = noStream })
			runtimetest.Test(t, c, runtimetest.Options{})
		})
	}
}

// TestClientCancelStopsGeneration: when the client gives up, the server
// cancels the runtime's generation and frees the slot.
func TestClientCancelStopsGeneration(t *testing.T) {
	t.Parallel()
	for _, noStream := range []bool{false, true} {
		rt := &fake.Runtime{Gate: make(chan struct{}), Started: make(chan struct{}, 1)}
		h, srv := newServer(t, rt, Options{})
		c := newClient(t, srv.URL, func(o *openai.Options) { o.NoStream = noStream })
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.Generate(ctx, runtime.Request{Prompt: "a"})
			done <- err
		}()
		<-rt.Started
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("client error = %v, want context.Canceled", err)
		}
		// The slot is free again once the generation has been cancelled.
		h.slots <- struct{}{}
		<-h.slots
		if rt.Cancelled.Load() != 1 {
			t.Errorf("noStream=%v: runtime saw %d cancellations, want 1", noStream, rt.Cancelled.Load())
		}
	}
}

// TestProbeRecordsServedRuntime: the openai runtime's manifest entry names
// the engine behind pocketeval serve.
func TestProbeRecordsServedRuntime(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, &runtimetest.Fake{}, Options{Model: "pocket"})
	c := newClient(t, srv.URL, nil)
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	info := c.Describe()
	models, _ := info.Settings["server_models"].([]string)
	rt, _ := info.Settings["server_runtime"].(runtime.Info)
	if len(models) != 1 || models[0] != "pocket" || rt.Name != "fake" || info.Version != "1" {
		t.Errorf("Describe after Probe = %+v", info)
	}
}

// TestSlowBodyIsCutOff: a client that sends its headers and then trickles
// (or stops sending) the body gets 408 and a closed connection once
// Options.BodyTimeout has passed, instead of holding a connection open
// until it gives up. Issue 21.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, &fake.Runtime{}, Options{BodyTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Hang guard only: the server must answer long before this.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"prompt\":"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "request body") {
		t.Errorf("stalled body: status %d %s, want 408 naming the request body", resp.StatusCode, b)
	}
	if !resp.Close {
		t.Errorf("stalled body: connection kept open")
	}
}

// TestBodyTimeoutDoesNotCancelGeneration: the body deadline ends once the
// body is read; a generation running longer than it completes.
func TestBodyTimeoutDoesNotCancelGeneration(t *testing.T) {
	t.Parallel()
	rt := &fake.Runtime{Gate: make(chan struct{}), Started: make(chan struct{}, 1)}
	_, srv := newServer(t, rt, Options{BodyTimeout: 50 * time.Millisecond})
	codes := make(chan int, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b"}`))
		if err != nil {
			t.Error(err)
			codes <- 0
			return
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		codes <- resp.StatusCode
	}()
	<-rt.Started
	time.Sleep(300 * time.Millisecond) // well past the body deadline
	rt.Gate <- struct{}{}
	if c := <-codes; c != http.StatusOK {
		t.Errorf("generation longer than the body timeout: status %d, want 200", c)
	}
}
