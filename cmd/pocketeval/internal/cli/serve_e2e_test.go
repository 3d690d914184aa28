package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// storiesModel is the shared stories260K model, for tests that run
// llama.cpp; it skips the test when the libraries or the model are missing.
func storiesModel(t *testing.T) string {
	t.Helper()
	if _, err := llamacpp.LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	model := filepath.Join(sharedtest.Models(t), "gguf", "stories260K.gguf")
	if _, err := os.Stat(model); err != nil {
		t.Skipf("shared test model missing: %v", err)
	}
	return model
}

// TestServeLlamacppEndToEnd serves a real engine (llama.cpp running the
// shared stories260K model) with `pocketeval serve`'s code path and checks
// that the openai runtime talking to it passes the runtime conformance
// suite and answers exactly as the engine does in process.
func TestServeLlamacppEndToEnd(t *testing.T) {
	model := storiesModel(t)
	ios, _, _, _ := TestStreams()
	var served runtime.Runtime
	opts := &ServeOptions{
		IO:            ios,
		Runtime:       RuntimeOptions{Name: "llamacpp", Model: model, Threads: 1},
		Addr:          "127.0.0.1:0",
		MaxConcurrent: 2,
		MaxQueue:      16,
		Grace:         5 * time.Second,
		Quiet:         true,
		Open: func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
			rt, err := OpenRuntime(ctx, o)
			served = rt
			return rt, err
		},
	}
	addr, stop := startServe(t, opts)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve shutdown: %v", err)
		}
	}()
	newClient := func() *openai.Client {
		c, err := openai.New(openai.Options{BaseURL: "http://" + addr.String() + "/v1", RequestTimeout: time.Minute, MaxRetries: 1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	c := newClient()
	defer c.Close()
	for _, req := range []runtime.Request{
		{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 24}},
		{Prompt: "Lily had a red ball.", Gen: runtime.GenConfig{MaxTokens: 200, Stop: []string{"."}}},
		{Messages: []runtime.Message{{Role: "user", Content: "Tell me about a dog."}}, Gen: runtime.GenConfig{MaxTokens: 16}},
	} {
		want, err := served.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || got.FinishReason != want.FinishReason || got.PromptTokens != want.PromptTokens || got.CompletionTokens != want.CompletionTokens {
			t.Errorf("through serve: %q %s %d/%d\n   in process: %q %s %d/%d", got.Text, got.FinishReason, got.PromptTokens, got.CompletionTokens,
				want.Text, want.FinishReason, want.PromptTokens, want.CompletionTokens)
		}
		if got.Timings.DecodeTokPerSec <= 0 || got.Timings.TimeToFirstToken <= 0 {
			t.Errorf("timings through serve = %+v, want engine speeds and TTFT", got.Timings)
		}
	}
	// Concurrent clients get what each request gives alone in process
	// (the default computes every request alone: README, Reproducibility).
	{
		reqs := []runtime.Request{
			{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 40}},
			{Prompt: "Lily had a red ball.", Gen: runtime.GenConfig{MaxTokens: 40}},
			{Prompt: "The dog ran", Gen: runtime.GenConfig{MaxTokens: 40}},
			{Messages: []runtime.Message{{Role: "user", Content: "Tell me about a cat."}}, Gen: runtime.GenConfig{MaxTokens: 40}},
		}
		want := make([]string, len(reqs))
		for i, req := range reqs {
			r, err := served.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = r.Text
		}
		for round := range 2 {
			got := make([]string, len(reqs))
			errs := make([]error, len(reqs))
			var wg sync.WaitGroup
			for i, req := range reqs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cl := newClient()
					defer cl.Close()
					r, err := cl.Generate(context.Background(), req)
					got[i], errs[i] = r.Text, err
				}()
			}
			wg.Wait()
			for i := range reqs {
				if errs[i] != nil || got[i] != want[i] {
					t.Errorf("round %d, concurrent request %d: %q (%v), alone in process %q", round, i, got[i], errs[i], want[i])
				}
			}
		}
	}

	// "stream": true sends the text as it is decoded, in chunks that join
	// to the in-process text.
	{
		want, err := served.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 60}})
		if err != nil {
			t.Fatal(err)
		}
		body := `{"model":"m","prompt":"Once upon a time","max_tokens":60,"temperature":0,"stream":true}`
		resp, err := http.Post("http://"+addr.String()+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var text strings.Builder
		chunks := 0
		for _, line := range strings.Split(string(raw), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var ch struct {
				Choices []struct {
					Text string `json:"text"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(data), &ch); err != nil {
				t.Fatalf("chunk %q: %v", data, err)
			}
			if len(ch.Choices) > 0 && ch.Choices[0].Text != "" {
				chunks++
				text.WriteString(ch.Choices[0].Text)
			}
		}
		// How many chunks depends on how fast the client reads (deltas
		// it has not taken are joined); the runtimes' tests check that
		// text is told token by token.
		if text.String() != want.Text || chunks < 1 {
			t.Errorf("streamed %d chunks joining to %q; in process %q (%d tokens)", chunks, text.String(), want.Text, want.CompletionTokens)
		}
	}

	ll := []runtime.LoglikRequest{{Context: "Once upon a time", Continuation: " there was"}}
	want, err := served.(runtime.LogLikelihooder).LogLikelihood(context.Background(), ll)
	if err != nil && !errors.Is(err, runtime.ErrNotSupported) {
		t.Fatal(err)
	}
	if err == nil {
		got, err := c.LogLikelihood(context.Background(), ll)
		if err != nil || got[0] != want[0] {
			t.Errorf("log-likelihood through serve %v (%v), in process %v", got, err, want)
		}
	}

	runtimetest.Test(t, newClient(), runtimetest.Options{})
}

// BenchmarkServeOverhead compares a 64-token greedy generation on the
// shared stories260K model in process with the same request through
// pocketeval serve and the openai runtime over loopback.
func BenchmarkServeOverhead(b *testing.B) {
	if _, err := llamacpp.LibDir(""); err != nil {
		b.Skipf("llama.cpp libraries not installed: %v", err)
	}
	model := filepath.Join(sharedtest.Models(b), "gguf", "stories260K.gguf")
	if _, err := os.Stat(model); err != nil {
		b.Skipf("shared test model missing: %v", err)
	}
	ios, _, _, _ := TestStreams()
	var served runtime.Runtime
	opts := &ServeOptions{
		IO: ios, Runtime: RuntimeOptions{Name: "llamacpp", Model: model, Threads: 1},
		Addr: "127.0.0.1:0", MaxConcurrent: 1, MaxQueue: 4, Grace: time.Second, Quiet: true,
		Open: func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
			rt, err := OpenRuntime(ctx, o)
			served = rt
			return rt, err
		},
	}
	addr, stop := startServe(b, opts)
	defer stop()
	req := runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 64}}
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			if _, err := served.Generate(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, noStream := range []bool{false, true} {
		b.Run(map[bool]string{false: "serve-stream", true: "serve-nostream"}[noStream], func(b *testing.B) {
			c, err := openai.New(openai.Options{BaseURL: "http://" + addr.String() + "/v1", NoStream: noStream})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			for b.Loop() {
				if _, err := c.Generate(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// renderSpy is a served runtime that tells when Generate starts and what
// it returned.
type renderSpy struct {
	runtime.Runtime
	entered chan struct{}
	errs    chan error
}

func (s *renderSpy) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	s.entered <- struct{}{}
	resp, err := s.Runtime.Generate(ctx, req)
	s.errs <- err
	return resp, err
}

// TestServeChatRenderCancelled (issue #49): a chat request whose client
// goes away while `pocketeval serve --chat-template` renders it stops the
// render with the request's context. The template compares two lists of
// 10^11 items (built from aliased lists, in a few KiB) and would run until
// the render's 30 s limit; the runtime must return context.Canceled, not
// that limit.
func TestServeChatRenderCancelled(t *testing.T) {
	model := storiesModel(t)
	tmpl := filepath.Join(t.TempDir(), "slow.jinja")
	const lists = `[[[[1]*1000]*1000]*1000]*100`
	if err := os.WriteFile(tmpl, []byte(`{% set a = `+lists+` %}{% set b = `+lists+` %}{{ a == b }}{{ messages[0].content }}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := TestStreams()
	spy := &renderSpy{entered: make(chan struct{}, 1), errs: make(chan error, 1)}
	opts := &ServeOptions{
		IO:            ios,
		Runtime:       RuntimeOptions{Name: "llamacpp", Model: model, Threads: 1, ChatTemplateFile: tmpl},
		Addr:          "127.0.0.1:0",
		MaxConcurrent: 1,
		MaxQueue:      1,
		Grace:         5 * time.Second,
		Quiet:         true,
		Open: func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
			rt, err := OpenRuntime(ctx, o)
			spy.Runtime = rt
			return spy, err
		},
	}
	addr, stop := startServe(t, opts)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve shutdown: %v", err)
		}
	}()
	c, err := openai.New(openai.Options{BaseURL: "http://" + addr.String() + "/v1", RequestTimeout: time.Minute, MaxRetries: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clientErr := make(chan error, 1)
	go func() {
		_, err := c.Generate(ctx, runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "hi"}}, Gen: runtime.GenConfig{MaxTokens: 1}})
		clientErr <- err
	}()
	select {
	case <-spy.entered:
	case err := <-clientErr:
		t.Fatalf("the request ended before it reached the runtime: %v", err)
	}
	cancel() // the client goes away
	<-clientErr
	select {
	case err := <-spy.errs:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the render of a request whose client went away ended with %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the render still runs two minutes after its client went away")
	}
}
