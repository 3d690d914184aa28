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
