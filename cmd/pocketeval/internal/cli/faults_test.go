package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/serve"
)

// faultyFront injects faults in front of an OpenAI-compatible handler: the
// first attempt of each distinct request fails (500, 429 with Retry-After,
// a reset connection, malformed JSON, or a stall past the client's
// timeout, by rotation), and requests for "question 7" always fail.
type faultyFront struct {
	next      http.Handler
	permanent atomic.Bool
	mu        sync.Mutex
	seen      map[string]int
	faults    atomic.Int64
}

func (f *faultyFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		f.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if f.permanent.Load() && bytes.Contains(body, []byte("question 7\"")) {
		f.faults.Add(1)
		http.Error(w, `{"error":{"message":"injected permanent failure"}}`, http.StatusInternalServerError)
		return
	}
	f.mu.Lock()
	n := f.seen[string(body)]
	f.seen[string(body)] = n + 1
	kind := len(f.seen) % 5
	f.mu.Unlock()
	if n > 0 {
		f.next.ServeHTTP(w, r)
		return
	}
	f.faults.Add(1)
	switch kind {
	case 0:
		http.Error(w, `{"error":{"message":"injected"}}`, http.StatusInternalServerError)
	case 1:
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
	case 2:
		if hj, ok := w.(http.Hijacker); ok {
			conn, _, err := hj.Hijack()
			if err == nil {
				conn.Close()
				return
			}
		}
		http.Error(w, "reset", http.StatusBadGateway)
	case 3:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices": [ {"message": `)
	case 4:
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
		http.Error(w, "stalled", http.StatusGatewayTimeout)
	}
}

// TestOpenAIRunSurvivesFaults: a run against a faulty server completes,
// transient faults are retried, a permanent failure becomes a sample error
// (exit 1), and running again retries only that sample.
func TestOpenAIRunSurvivesFaults(t *testing.T) {
	t.Parallel()
	front := &faultyFront{next: serve.New(cliRuntime{}, serve.Options{MaxConcurrent: 4}), seen: map[string]int{}}
	front.permanent.Store(true)
	srv := httptest.NewServer(front)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--runtime", "openai", "--base-url", srv.URL + "/v1", "--model", "fake", "--tasks", "alpha",
		"--out", out, "--concurrency", "4", "--max-retries", "3", "--request-timeout", "1s"}
	f, stdout, errb := testFactory()
	done := make(chan int, 1)
	go func() { done <- Execute(context.Background(), f, args) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the run hangs")
	}
	if code != ExitError || !strings.Contains(errb.String(), "FAILED alpha: 1 of 30 samples failed") || !strings.Contains(errb.String(), "7") ||
		!strings.Contains(errb.String(), "run the same command again to retry them") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errb)
	}
	if front.faults.Load() < 30 {
		t.Errorf("only %d faults were injected", front.faults.Load())
	}
	// The server recovers: only the failed sample is requested again.
	front.permanent.Store(false)
	f2, _, errb2 := testFactory()
	if code := Execute(context.Background(), f2, args); code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, errb2)
	}
	if !strings.Contains(errb2.String(), "29 samples reused, 1 generated") {
		t.Errorf("rerun did not retry exactly the failed sample: %s", errb2)
	}
	// The scores equal a run straight against the fake runtime.
	direct := filepath.Join(t.TempDir(), "direct")
	if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", direct); code != 0 {
		t.Fatal(e)
	}
	if a, b := summaryScores(t, direct), summaryScores(t, out); a != b {
		t.Errorf("served scores differ from direct ones:\n%s\n---\n%s", a, b)
	}
}

// stubbornFront fails the first attempt of every distinct request, by
// rotation: a 429 whose Retry-After asks for more than a day, a 500,
// JSON cut off mid-object, an answer with no choices, and a stall that
// never answers; requests for "question 4" fail every time with a 500.
type stubbornFront struct {
	next   http.Handler
	mu     sync.Mutex
	seen   map[string]int
	faults atomic.Int64
}

func (f *stubbornFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		f.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	n := f.seen[string(body)]
	f.seen[string(body)] = n + 1
	kind := len(f.seen) % 5
	f.mu.Unlock()
	if n > 0 && !bytes.Contains(body, []byte("question 4\"")) {
		f.next.ServeHTTP(w, r)
		return
	}
	f.faults.Add(1)
	switch {
	case n > 0 || kind == 1:
		http.Error(w, `{"error":{"message":"injected"}}`, http.StatusInternalServerError)
	case kind == 0:
		w.Header().Set("Retry-After", "100000")
		http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
	case kind == 2:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "x", "choices": [ {"message": {"role": "assistant", "content": "1`)
	case kind == 3:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "x", "object": "chat.completion", "choices": []}`)
	default:
		<-r.Context().Done() // a stall: only the client's timeout ends it
	}
}

// TestOpenAIWaitsAreBounded (issue 39): against a server that answers
// 429 with Retry-After 100000, 500s, truncated JSON, empty choices and
// stalls, a run finishes in bounded time (every wait is capped by the
// request timeout, and says what it waits for), the transient faults are
// retried, and the one sample that always fails is the only one counted
// failed.
func TestOpenAIWaitsAreBounded(t *testing.T) {
	t.Parallel()
	front := &stubbornFront{next: serve.New(cliRuntime{}, serve.Options{MaxConcurrent: 4}), seen: map[string]int{}}
	srv := httptest.NewServer(front)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run")
	f, stdout, errb := testFactory()
	done := make(chan int, 1)
	start := time.Now()
	go func() {
		done <- Execute(context.Background(), f, []string{"run", "--runtime", "openai", "--base-url", srv.URL + "/v1", "--model", "fake",
			"--tasks", "alpha", "--limit", "10", "--out", out, "--concurrency", "2", "--max-retries", "2", "--request-timeout", "1s"})
	}()
	var code int
	select {
	case code = <-done:
	case <-time.After(3 * time.Minute): // unbounded waits take a day
		t.Fatal("the run hangs on a server's Retry-After or stall")
	}
	if code != ExitError || !strings.Contains(errb.String(), "FAILED alpha: 1 of 10 samples failed") {
		t.Fatalf("exit %d after %v\n%s\n%s", code, time.Since(start), stdout, errb)
	}
	for _, want := range []string{"Retry-After 27h46m40s, capped at the maximum 2m0s, capped at the request timeout 1s", "retrying in 1s", "attempt 2 of 3", "giving up after 3 attempts"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	s, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if ts := s.Tasks["alpha"]; ts.Scored != 9 || ts.Errors != 1 || ts.RetryableErrors != 1 {
		t.Errorf("scored %d, errors %d (retryable %d), want 9, 1 (1)", ts.Scored, ts.Errors, ts.RetryableErrors)
	}
	if front.faults.Load() < 12 {
		t.Errorf("only %d faults were injected", front.faults.Load())
	}
}
