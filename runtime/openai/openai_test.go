package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// fault is what the fake server does with one request.
type fault string

const (
	ok          fault = "ok"
	status500   fault = "500"
	status503   fault = "503"
	status429   fault = "429"   // Retry-After: 7
	status429ms fault = "429ms" // retry-after-ms: 1500
	status400   fault = "400"
	reset       fault = "reset"       // hijack and close with RST
	stall       fault = "stall"       // never answer until the client gives up
	malformed   fault = "malformed"   // 200 with broken JSON
	truncated   fault = "truncated"   // 200 SSE cut off before the end
	badChunk    fault = "badchunk"    // 200 SSE with a malformed chunk
	noStream    fault = "nostream"    // 400 "stream is not supported" when streaming
	noStreamOpt fault = "nostreamopt" // 400 "stream_options: unknown field" when sent
	cutBody     fault = "cutbody"     // 200 whose body stops short of its Content-Length
	nullContent fault = "nullcontent" // 200 JSON whose message content is null
	nullMessage fault = "nullmessage" // 200 JSON whose choice has "message": null
	nullChoices fault = "nullchoices" // 200 JSON with "choices": null
	nullText    fault = "nulltext"    // 200 JSON completion whose text is null
	numContent  fault = "numcontent"  // 200 JSON whose content is a number
	noChoiceSSE fault = "nochoicesse" // 200 SSE whose chunks carry no choice, then [DONE]
)

// fakeServer answers OpenAI-style requests, applying the scripted faults in
// order and then answering ok. It records every request body.
type fakeServer struct {
	t      *testing.T
	mu     sync.Mutex
	script []fault
	bodies []map[string]any
	raws   [][]byte // the bodies as sent
	auth   []string
	paths  []string
	// answer builds the ok response text for a request body.
	text     string
	finish   string
	ignoreSS bool // answer JSON even when asked to stream
	timings  bool // attach llama.cpp-style timings
	srv      *httptest.Server
}

func newFake(t *testing.T, script ...fault) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, script: script, text: "Hello, world", finish: "stop"}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) next(body map[string]any, raw []byte, r *http.Request) fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bodies = append(f.bodies, body)
	f.raws = append(f.raws, raw)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.paths = append(f.paths, r.URL.Path)
	if len(f.script) == 0 {
		return ok
	}
	x := f.script[0]
	f.script = f.script[1:]
	return x
}

func (f *fakeServer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &body)
	x := f.next(body, data, r)
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	stream, _ := body["stream"].(bool)
	switch x {
	case status500, status503, status400:
		code := map[fault]int{status500: 500, status503: 503, status400: 400}[x]
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"injected %s","type":"test_error","code":%q}}`, x, x)
		return
	case status429:
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(429)
		fmt.Fprint(w, `{"error":{"message":"slow down"}}`)
		return
	case status429ms:
		w.Header().Set("retry-after-ms", "1500")
		w.WriteHeader(429)
		fmt.Fprint(w, `{"error":{"message":"slow down"}}`)
		return
	case reset:
		hj, okHJ := w.(http.Hijacker)
		if !okHJ {
			f.t.Error("response writer cannot hijack")
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			f.t.Errorf("hijack: %v", err)
			return
		}
		if tc, isTCP := conn.(*net.TCPConn); isTCP {
			_ = tc.SetLinger(0)
		}
		conn.Close()
		return
	case stall:
		<-r.Context().Done()
		return
	case cutBody:
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			f.t.Errorf("hijack: %v", err)
			return
		}
		fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"choices\":[")
		buf.Flush()
		conn.Close()
		return
	case malformed:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices": [{"message": {"content": "oops"`)
		return
	case nullContent, nullMessage, nullChoices, nullText, numContent:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, map[fault]string{
			nullContent: `{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":3}}`,
			nullMessage: `{"choices":[{"index":0,"message":null,"finish_reason":"stop"}]}`,
			nullChoices: `{"choices":null}`,
			nullText:    `{"choices":[{"index":0,"text":null,"finish_reason":"stop"}]}`,
			numContent:  `{"choices":[{"index":0,"message":{"content":5},"text":5,"finish_reason":"stop"}]}`,
		}[x])
		return
	case noChoiceSSE:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n")
		return
	case truncated:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: "+chunk(chat, "Hel", nil)+"\n\n")
		return
	case badChunk:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: "+chunk(chat, "Hel", nil)+"\n\ndata: {not json\n\n")
		return
	case noStreamOpt:
		if _, sent := body["stream_options"]; sent {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":{"message":"unknown field stream_options"}}`)
			return
		}
	case noStream:
		if stream {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":{"message":"'stream' is not supported"}}`)
			return
		}
	}
	f.answer(w, chat, stream)
}

func chunk(chat bool, piece string, finish *string) string {
	ch := map[string]any{"index": 0, "finish_reason": finish}
	if chat {
		ch["delta"] = map[string]any{"content": piece}
	} else {
		ch["text"] = piece
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{ch}})
	return string(b)
}

func (f *fakeServer) answer(w http.ResponseWriter, chat, stream bool) {
	usage := map[string]any{"prompt_tokens": 11, "completion_tokens": 3}
	timings := map[string]any{"prompt_n": 11, "prompt_ms": 20.0, "prompt_per_second": 550.0, "predicted_n": 3, "predicted_ms": 30.0, "predicted_per_second": 100.0}
	if stream && !f.ignoreSS {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, ": keep-alive\n\n")
		words := strings.SplitAfter(f.text, " ")
		for _, p := range words {
			fmt.Fprint(w, "data: "+chunk(chat, p, nil)+"\n\n")
			fl.Flush()
		}
		fin := f.finish
		last := map[string]any{"choices": []any{}, "usage": usage}
		if f.timings {
			last["timings"] = timings
		}
		b, _ := json.Marshal(last)
		fmt.Fprint(w, "data: "+chunk(chat, "", &fin)+"\n\n")
		fmt.Fprint(w, "event: message\ndata: "+string(b)+"\r\n\r\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	ch := map[string]any{"index": 0, "finish_reason": f.finish}
	if chat {
		ch["message"] = map[string]any{"role": "assistant", "content": f.text}
	} else {
		ch["text"] = f.text
	}
	resp := map[string]any{"choices": []any{ch}, "usage": usage}
	if f.timings {
		resp["timings"] = timings
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// testClient returns a client for f whose retry sleeps are recorded, not
// slept.
func testClient(t *testing.T, f *fakeServer, mod func(*Options)) (*Client, *[]time.Duration) {
	t.Helper()
	o := Options{BaseURL: f.srv.URL + "/v1", Model: "m", MaxRetries: 3, RequestTimeout: 2 * time.Second}
	if mod != nil {
		mod(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var mu sync.Mutex
	sleeps := &[]time.Duration{}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*sleeps = append(*sleeps, d)
		mu.Unlock()
		return ctx.Err()
	}
	c.jitter = func(n int64) int64 { return 0 }
	return c, sleeps
}

var chatReq = runtime.Request{
	Messages: []runtime.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "hi"}},
	Gen:      runtime.GenConfig{MaxTokens: 32, Temperature: 0, TopP: 0.9, Seed: 42, Stop: []string{"\n\n", "END"}},
}

func TestFaultsRecover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     []fault
		noStream   bool
		wantCalls  int
		wantSleeps []time.Duration
	}{
		{"clean", nil, false, 1, nil},
		{"500 then ok", []fault{status500}, false, 2, []time.Duration{250 * time.Millisecond}},
		{"503 twice then ok", []fault{status503, status503}, false, 3, []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{"429 Retry-After seconds", []fault{status429}, false, 2, []time.Duration{7 * time.Second}},
		{"429 retry-after-ms", []fault{status429ms}, false, 2, []time.Duration{1500 * time.Millisecond}},
		{"connection reset", []fault{reset}, false, 2, []time.Duration{250 * time.Millisecond}},
		{"malformed JSON", []fault{malformed}, true, 2, []time.Duration{250 * time.Millisecond}},
		{"body cut short", []fault{cutBody}, true, 2, []time.Duration{250 * time.Millisecond}},
		{"truncated SSE", []fault{truncated}, false, 2, []time.Duration{250 * time.Millisecond}},
		{"malformed SSE chunk", []fault{badChunk}, false, 2, []time.Duration{250 * time.Millisecond}},
		{"stall beyond timeout", []fault{stall}, false, 2, []time.Duration{250 * time.Millisecond}},
		{"mixed", []fault{reset, status429, truncated}, false, 4, []time.Duration{250 * time.Millisecond, 7 * time.Second, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.script...)
			c, sleeps := testClient(t, f, func(o *Options) {
				o.NoStream = tt.noStream
				// Only the stall needs a short timeout; a generous one
				// elsewhere keeps a loaded machine from adding retries.
				o.RequestTimeout = 10 * time.Second
				if slices.Contains(tt.script, stall) {
					o.RequestTimeout = time.Second
				}
			})
			resp, err := c.Generate(context.Background(), chatReq)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if resp.Text != "Hello, world" || resp.FinishReason != runtime.FinishStop {
				t.Errorf("response = %q/%q, want %q/stop", resp.Text, resp.FinishReason, "Hello, world")
			}
			if resp.PromptTokens != 11 || resp.CompletionTokens != 3 {
				t.Errorf("tokens = %d/%d, want 11/3", resp.PromptTokens, resp.CompletionTokens)
			}
			if got := f.requests(); got != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", got, tt.wantCalls)
			}
			if fmt.Sprint(*sleeps) != fmt.Sprint(tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", *sleeps, tt.wantSleeps)
			}
		})
	}
}

func TestFaultsExhaustBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fault     fault
		wantCalls int
		wantErr   string
		wantAPI   int // expected APIError status, 0 for none
	}{
		{"500 forever", status500, 3, "giving up after 3 attempts: server returned 500: injected 500", 500},
		{"429 forever", status429, 3, "giving up after 3 attempts: server returned 429: slow down", 429},
		{"reset forever", reset, 3, "giving up after 3 attempts: connection:", 0},
		{"stall forever", stall, 3, "giving up after 3 attempts: attempt timed out after 100ms", 0},
		{"truncated forever", truncated, 3, "truncated stream", 0},
		{"400 is permanent", status400, 1, "server returned 400: injected 400", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.fault, tt.fault, tt.fault, tt.fault, tt.fault)
			c, _ := testClient(t, f, func(o *Options) {
				o.MaxRetries = 2
				o.RequestTimeout = 10 * time.Second
				if tt.fault == stall {
					o.RequestTimeout = 100 * time.Millisecond
				}
			})
			_, err := c.Generate(context.Background(), chatReq)
			if err == nil {
				t.Fatal("Generate succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %q, want it to contain %q", err, tt.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "openai: POST /chat/completions: ") {
				t.Errorf("error = %q, want it to name the operation", err)
			}
			var ae *APIError
			if got := errors.As(err, &ae); got != (tt.wantAPI != 0) || (got && ae.StatusCode != tt.wantAPI) {
				t.Errorf("errors.As APIError = %v (%v), want status %d", got, ae, tt.wantAPI)
			}
			if got := f.requests(); got != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestCallerCancelStopsRetrying(t *testing.T) {
	t.Parallel()
	f := newFake(t, status500, status500, status500)
	c, _ := testClient(t, f, nil)
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	_, err := c.Generate(ctx, chatReq)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if got := f.requests(); got != 1 {
		t.Errorf("server saw %d requests, want 1", got)
	}
}

func TestCallerCancelDuringStall(t *testing.T) {
	t.Parallel()
	f := newFake(t, stall)
	c, _ := testClient(t, f, func(o *Options) { o.RequestTimeout = time.Minute })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Generate(ctx, chatReq)
		done <- err
	}()
	for f.requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

func TestRequestPassThrough(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	c, _ := testClient(t, f, func(o *Options) { o.APIKey = "sk-secret" })
	if _, err := c.Generate(context.Background(), chatReq); err != nil {
		t.Fatal(err)
	}
	raw := runtime.Request{Prompt: "Once upon", Gen: runtime.GenConfig{Temperature: 0.7, Seed: 0}}
	if _, err := c.Generate(context.Background(), raw); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paths[0] != "/v1/chat/completions" || f.paths[1] != "/v1/completions" {
		t.Errorf("paths = %v, want chat then completions", f.paths)
	}
	if f.auth[0] != "Bearer sk-secret" {
		t.Errorf("Authorization = %q", f.auth[0])
	}
	got, _ := json.Marshal(f.bodies[0])
	want := `{"max_tokens":32,"messages":[{"content":"be brief","role":"system"},{"content":"hi","role":"user"}],"model":"m","seed":42,"stop":["\n\n","END"],"stream":true,"stream_options":{"include_usage":true},"temperature":0,"top_p":0.9}`
	if string(got) != want {
		t.Errorf("chat body:\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(f.bodies[1])
	want = `{"model":"m","prompt":"Once upon","seed":0,"stream":true,"stream_options":{"include_usage":true},"temperature":0.7}`
	if string(got) != want {
		t.Errorf("completions body:\n got %s\nwant %s", got, want)
	}
	d, _ := json.Marshal(c.Describe())
	if strings.Contains(string(d), "sk-secret") {
		t.Errorf("Describe leaks the API key: %s", d)
	}
}

func TestStreamingModes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		setup     func(*fakeServer)
		script    []fault
		noStream  bool
		wantCalls int
		wantTTFT  bool
	}{
		{"streamed", nil, nil, false, 1, true},
		{"non-streamed", nil, nil, true, 1, false},
		{"server ignores stream", func(f *fakeServer) { f.ignoreSS = true }, nil, false, 1, false},
		{"server refuses stream", nil, []fault{noStream}, false, 2, false},
		{"server refuses stream_options", nil, []fault{noStreamOpt}, false, 2, true},
		{"server timings give TTFT", func(f *fakeServer) { f.timings = true }, nil, true, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.script...)
			f.text = "The quick brown fox"
			f.finish = "length"
			if tt.setup != nil {
				tt.setup(f)
			}
			c, sleeps := testClient(t, f, func(o *Options) { o.NoStream = tt.noStream })
			for _, req := range []runtime.Request{chatReq, {Prompt: "p"}} {
				resp, err := c.Generate(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if resp.Text != "The quick brown fox" || resp.FinishReason != runtime.FinishLength {
					t.Errorf("response = %q/%q", resp.Text, resp.FinishReason)
				}
				if (resp.Timings.TimeToFirstToken > 0) != tt.wantTTFT {
					t.Errorf("TTFT = %v, want known=%v", resp.Timings.TimeToFirstToken, tt.wantTTFT)
				}
				if resp.Timings.Total <= 0 {
					t.Errorf("Total = %v, want > 0", resp.Timings.Total)
				}
				if f.timings && (resp.Timings.PrefillTokPerSec != 550 || resp.Timings.DecodeTokPerSec != 100 || resp.Timings.TimeToFirstToken != 20*time.Millisecond) {
					t.Errorf("timings = %+v, want the server's", resp.Timings)
				}
			}
			// Chat and completions: the refusal is remembered, so
			// only the first request needs the extra round trip.
			if got := f.requests(); got != tt.wantCalls+1 {
				t.Errorf("server saw %d requests, want %d", got, tt.wantCalls+1)
			}
			if len(*sleeps) != 0 {
				t.Errorf("slept %v, want no retries", *sleeps)
			}
		})
	}
}

func TestChatOnCompletionsEndpoint(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	c, _ := testClient(t, f, func(o *Options) { o.Endpoint = EndpointCompletions })
	_, err := c.Generate(context.Background(), chatReq)
	if !errors.Is(err, runtime.ErrNotSupported) {
		t.Fatalf("error = %v, want ErrNotSupported", err)
	}
	if f.requests() != 0 {
		t.Errorf("server was called")
	}
	if _, err := c.Generate(context.Background(), runtime.Request{Prompt: "x"}); err != nil {
		t.Errorf("raw prompt on completions endpoint: %v", err)
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{
		{},
		{BaseURL: "ftp://x"},
		{BaseURL: "http://x", Endpoint: "embeddings"},
		{BaseURL: "http://x", MaxRetries: -1},
		{BaseURL: "http://x", RequestTimeout: -time.Second},
		{BaseURL: "http://x", Thinking: "maybe"},
		{BaseURL: "http://x", Endpoint: EndpointCompletions, Thinking: chattemplate.ThinkingOff},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", o)
		}
	}
}

func TestMapFinish(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "stop", "stop": "stop", "eos": "stop", "STOP": "stop", "end_turn": "stop",
		"length": "length", "max_tokens": "length", "content_filter": "content_filter",
	} {
		if got := mapFinish(in); got != want {
			t.Errorf("mapFinish(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	check := func(h map[string]string, want time.Duration) {
		t.Helper()
		hd := http.Header{}
		for k, v := range h {
			hd.Set(k, v)
		}
		if got := parseRetryAfter(hd, now); got != want {
			t.Errorf("parseRetryAfter(%v) = %v, want %v", h, got, want)
		}
	}
	check(nil, 0)
	check(map[string]string{"Retry-After": "3"}, 3*time.Second)
	check(map[string]string{"Retry-After": "0.5"}, 500*time.Millisecond)
	check(map[string]string{"Retry-After": "Thu, 01 Jan 2026 12:00:10 GMT"}, 10*time.Second)
	check(map[string]string{"Retry-After": "Thu, 01 Jan 2026 11:00:00 GMT"}, 0)
	check(map[string]string{"Retry-After": "soon"}, 0)
	check(map[string]string{"Retry-After": "-4"}, 0)
	check(map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250*time.Millisecond)
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	c, err := New(Options{BaseURL: "http://x", BackoffBase: time.Second, BackoffMax: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c.jitter = func(n int64) int64 { return n - 1 } // maximum jitter
	var got []time.Duration
	for n := 0; n < 5; n++ {
		got = append(got, c.backoff(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("max-jitter backoff = %v, want %v", got, want)
	}
	c.jitter = func(int64) int64 { return 0 }
	if d := c.backoff(1); d != time.Second {
		t.Errorf("min-jitter backoff(1) = %v, want 1s", d)
	}
}

func TestRetryAfterCapped(t *testing.T) {
	t.Parallel()
	f := newFake(t, status429)
	c, sleeps := testClient(t, f, func(o *Options) { o.MaxRetryAfter = 2 * time.Second })
	if _, err := c.Generate(context.Background(), chatReq); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*sleeps) != "[2s]" {
		t.Errorf("sleeps = %v, want [2s]", *sleeps)
	}
}

// TestConcurrentNoGlobalLock checks that parallel requests are in flight
// at the same time: the server holds each until all have arrived.
func TestConcurrentNoGlobalLock(t *testing.T) {
	t.Parallel()
	const n = 8
	var arrived sync.WaitGroup
	arrived.Add(n)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Done()
		arrived.Wait()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"index":0,"text":"x","finish_reason":"stop"}]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{BaseURL: srv.URL, NoStream: true, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Generate(context.Background(), runtime.Request{Prompt: "p"})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func fp(v float64) *float64 { return &v }

func TestContinuationLoglik(t *testing.T) {
	t.Parallel()
	// "The cat sat" + " down" → tokens The| cat| sat| down| (+ generated)
	lp := &wireLogprobs{
		Tokens:        []string{"The", " cat", " sat", " do", "wn", "!"},
		TokenLogprobs: []*float64{nil, fp(-2), fp(-1), fp(-0.5), fp(-0.25), fp(-3)},
		TopLogprobs:   []map[string]float64{nil, {" cat": -2}, {" sat": -1}, {" do": -0.5}, {"wn": -0.25, "x": -0.1}, {"!": -3}},
		TextOffset:    []int{0, 3, 7, 11, 14, 16},
	}
	got, err := continuationLoglik(lp, 11, 16)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tokens != 2 || math.Abs(got.LogProb+0.75) > 1e-12 || got.IsGreedy {
		t.Errorf("got %+v, want 2 tokens, -0.75, not greedy", got)
	}
	got, err = continuationLoglik(lp, 7, 14) // " sat do" with the straddling "wn" excluded by end
	if err != nil {
		t.Fatal(err)
	}
	if got.Tokens != 2 || got.LogProb != -1.5 || !got.IsGreedy {
		t.Errorf("got %+v, want 2 tokens, -1.5, greedy", got)
	}
	// Without offsets they are rebuilt from the token texts.
	lp.TextOffset = nil
	got, err = continuationLoglik(lp, 11, 16)
	if err != nil || got.Tokens != 2 {
		t.Errorf("rebuilt offsets: %+v, %v", got, err)
	}
	if _, err := continuationLoglik(lp, 0, 3); err == nil {
		t.Error("null logprob of the first token: want an error")
	}
}

func TestLogLikelihoodMethods(t *testing.T) {
	t.Parallel()
	echo := func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if body["echo"] != true || body["logprobs"] != 1.0 {
			w.WriteHeader(400)
			return
		}
		prompt := body["prompt"].(string)
		// One token per character, logprob -1 each, always greedy.
		var toks []string
		var lps []*float64
		var tops []map[string]float64
		var offs []int
		for i, ch := range prompt {
			toks = append(toks, string(ch))
			offs = append(offs, i)
			if i == 0 {
				lps = append(lps, nil)
				tops = append(tops, nil)
			} else {
				lps = append(lps, fp(-1))
				tops = append(tops, map[string]float64{string(ch): -1})
			}
		}
		toks = append(toks, "?")
		lps = append(lps, fp(-9))
		tops = append(tops, map[string]float64{"?": -9})
		offs = append(offs, len(prompt))
		resp := map[string]any{"choices": []any{map[string]any{"text": prompt + "?", "logprobs": map[string]any{
			"tokens": toks, "token_logprobs": lps, "top_logprobs": tops, "text_offset": offs}}}}
		_ = json.NewEncoder(w).Encode(resp)
	}
	ext := func(w http.ResponseWriter, r *http.Request) {
		var body LoglikRequestBody
		_ = json.NewDecoder(r.Body).Decode(&body)
		out := LoglikResponseBody{Object: "loglikelihood"}
		for _, q := range body.Requests {
			out.Results = append(out.Results, runtime.LoglikResult{LogProb: -float64(len(q.Continuation)) / 2, IsGreedy: true, Tokens: len(q.Continuation)})
		}
		_ = json.NewEncoder(w).Encode(out)
	}
	reqs := []runtime.LoglikRequest{{Context: "Q: 2+2? A:", Continuation: " 4"}, {Context: "Q: 2+2? A:", Continuation: " five"}}
	tests := []struct {
		name    string
		routes  map[string]http.HandlerFunc
		want    []runtime.LoglikResult
		wantErr error
		calls   int // requests the second LogLikelihood call makes
	}{
		{"extension", map[string]http.HandlerFunc{"/v1/loglikelihood": ext, "/v1/completions": echo},
			[]runtime.LoglikResult{{LogProb: -1, IsGreedy: true, Tokens: 2}, {LogProb: -2.5, IsGreedy: true, Tokens: 5}}, nil, 1},
		{"echo", map[string]http.HandlerFunc{"/v1/completions": echo},
			[]runtime.LoglikResult{{LogProb: -2, IsGreedy: true, Tokens: 2}, {LogProb: -5, IsGreedy: true, Tokens: 5}}, nil, 2},
		{"neither", map[string]http.HandlerFunc{}, nil, runtime.ErrNotSupported, 0},
		{"echo refused", map[string]http.HandlerFunc{"/v1/completions": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":{"code":400,"message":"Only no echo is supported","type":"invalid_request_error"}}`)
		}}, nil, runtime.ErrNotSupported, 0},
		{"echo ignored", map[string]http.HandlerFunc{"/v1/completions": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"choices":[{"text":" 4","logprobs":{"tokens":[" 4"],"token_logprobs":[-0.1],"top_logprobs":[{" 4":-0.1}],"text_offset":[0]}}]}`)
		}}, nil, runtime.ErrNotSupported, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			calls := 0
			mux := http.NewServeMux()
			for p, h := range tt.routes {
				mux.HandleFunc(p, h)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				mu.Unlock()
				mux.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			c, err := New(Options{BaseURL: srv.URL + "/v1", RequestTimeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			_, perr := c.LogLikelihood(context.Background(), nil)
			if (tt.wantErr == nil) != (perr == nil) || (perr != nil && !errors.Is(perr, tt.wantErr)) {
				t.Errorf("empty-batch probe = %v, want %v", perr, tt.wantErr)
			}
			for round := 0; round < 2; round++ {
				mu.Lock()
				calls = 0
				mu.Unlock()
				got, err := c.LogLikelihood(context.Background(), reqs)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("error = %v, want %v", err, tt.wantErr)
					}
				} else if err != nil {
					t.Fatal(err)
				} else if fmt.Sprint(got) != fmt.Sprint(tt.want) {
					t.Errorf("got %v, want %v", got, tt.want)
				}
				mu.Lock()
				n := calls
				mu.Unlock()
				if round == 1 && n != tt.calls {
					t.Errorf("second call made %d requests, want %d (method not cached?)", n, tt.calls)
				}
			}
		})
	}
}

func TestProbe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		handler    http.HandlerFunc
		wantErr    string
		wantModels []string
	}{
		{"models", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"a"},{"id":"b"}]}`)
		}, "", []string{"a", "b"}},
		{"no models endpoint", http.NotFound, "", nil},
		{"not json", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") }, "", nil},
		{"bad key", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(403) }, "server returned 403", nil},
		{"down", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, "giving up after 2 attempts: server returned 503", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			t.Cleanup(srv.Close)
			c, err := New(Options{BaseURL: srv.URL, MaxRetries: 1})
			if err != nil {
				t.Fatal(err)
			}
			c.sleep = func(ctx context.Context, d time.Duration) error { return nil }
			err = c.Probe(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Probe = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := c.Describe().Settings["server_models"].([]string)
			if fmt.Sprint(got) != fmt.Sprint(tt.wantModels) {
				t.Errorf("server_models = %v, want %v", got, tt.wantModels)
			}
		})
	}
}

func TestReasoningContent(t *testing.T) {
	t.Parallel()
	const want = "<think>\nLet me add.\n</think>\n\n4"
	stream := "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"Let me\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\" add.\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"4\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	res, err := readStream(strings.NewReader(stream), true, time.Now())
	if err != nil || res.text != want || res.ttft <= 0 {
		t.Errorf("stream: %q ttft %v (%v), want %q", res.text, res.ttft, err, want)
	}
	res, err = readJSON(strings.NewReader(`{"choices":[{"message":{"content":"4","reasoning":"Let me add.\n"},"finish_reason":"stop"}]}`), true)
	if err != nil || res.text != want {
		t.Errorf("json: %q (%v), want %q", res.text, err, want)
	}
	res, err = readJSON(strings.NewReader(`{"choices":[{"message":{"content":"4"},"finish_reason":"stop"}]}`), true)
	if err != nil || res.text != "4" {
		t.Errorf("json without reasoning: %q (%v)", res.text, err)
	}
}

// TestMalformedAnswersAreErrors: a 200 whose answer is missing or of the
// wrong shape ("content": null, "message": null, a number for text, a
// stream that never carries a choice) is an error that is retried and, when
// it persists, returned — never an empty answer to be scored. Issue 21.
func TestMalformedAnswersAreErrors(t *testing.T) {
	t.Parallel()
	raw := runtime.Request{Prompt: "1 2 3"}
	for _, tt := range []struct {
		fault    fault
		req      runtime.Request
		noStream bool
		wantErr  string
	}{
		{nullContent, chatReq, true, "message content is null"},
		{nullMessage, chatReq, true, "choice has no message"},
		{nullChoices, chatReq, true, "no choices"},
		{nullText, raw, true, "choice has no text"},
		{numContent, chatReq, true, "malformed JSON"},
		{numContent, raw, true, "malformed JSON"},
		{noChoiceSSE, chatReq, false, "stream carried no choice"},
		{noChoiceSSE, raw, false, "stream carried no choice"},
	} {
		name := string(tt.fault) + map[bool]string{true: "/chat", false: "/raw"}[tt.req.IsChat()]
		t.Run(name+"/persists", func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.fault, tt.fault, tt.fault)
			c, _ := testClient(t, f, func(o *Options) { o.MaxRetries = 2; o.NoStream = tt.noStream })
			resp, err := c.Generate(context.Background(), tt.req)
			if err == nil {
				t.Fatalf("Generate = %q, nil; want an error", resp.Text)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "giving up after 3 attempts") {
				t.Errorf("error = %q, want %q after 3 attempts", err, tt.wantErr)
			}
			if got := f.requests(); got != 3 {
				t.Errorf("server saw %d requests, want 3 (retried)", got)
			}
		})
		t.Run(name+"/recovers", func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.fault)
			c, _ := testClient(t, f, func(o *Options) { o.NoStream = tt.noStream })
			resp, err := c.Generate(context.Background(), tt.req)
			if err != nil || resp.Text != "Hello, world" {
				t.Errorf("Generate = %q, %v; want the retried answer", resp.Text, err)
			}
		})
	}
}

// TestEmptyAnswerIsAnswer: an empty string is a real answer (the model
// stopped at once), streamed or not, and is not retried.
func TestEmptyAnswerIsAnswer(t *testing.T) {
	t.Parallel()
	for _, noStream := range []bool{false, true} {
		f := newFake(t)
		f.text = ""
		c, _ := testClient(t, f, func(o *Options) { o.NoStream = noStream })
		resp, err := c.Generate(context.Background(), chatReq)
		if err != nil || resp.Text != "" || f.requests() != 1 {
			t.Errorf("nostream=%v: Generate = %q, %v after %d requests; want \"\" at once", noStream, resp.Text, err, f.requests())
		}
	}
}
