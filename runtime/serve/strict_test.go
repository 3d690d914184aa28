package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// tooLong fails every request as a runtime whose context is too small.
type tooLong struct{}

func (tooLong) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return runtime.Response{}, &runtime.ContextExceededError{PromptTokens: 1019, ContextSize: 256, Err: context.DeadlineExceeded}
}
func (tooLong) Close() error { return nil }

// TestStrictRequests (issue 39): a prompt longer than the context is a
// 400 with llama-server's error shape (no client retries it), and a body
// that is not UTF-8 is refused with 400 rather than decoded into U+FFFD.
func TestStrictRequests(t *testing.T) {
	t.Parallel()
	_, srv := newServer(t, tooLong{}, Options{})
	post := func(body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		json.NewDecoder(resp.Body).Decode(&doc)
		return resp.StatusCode, doc
	}
	code, doc := post(`{"model":"m","messages":[{"role":"user","content":"a long story"}]}`)
	e, _ := doc["error"].(map[string]any)
	if code != http.StatusBadRequest || e["type"] != "invalid_request_error" || e["code"] != "context_length_exceeded" || e["param"] != "messages" ||
		e["n_prompt_tokens"] != 1019.0 || e["n_ctx"] != 256.0 ||
		!strings.Contains(e["message"].(string), "maximum context length is 256 tokens. However, your request has 1019 prompt tokens") {
		t.Errorf("prompt too long: %d %v", code, doc)
	}
	_, plainSrv := newServer(t, plain{}, Options{})
	resp, err := http.Post(plainSrv.URL+"/v1/chat/completions", "application/json", strings.NewReader("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var bad map[string]any
	json.NewDecoder(resp.Body).Decode(&bad)
	if e, _ := bad["error"].(map[string]any); resp.StatusCode != http.StatusBadRequest || !strings.Contains(e["message"].(string), "not valid UTF-8 (first bad byte at offset 54)") {
		t.Errorf("invalid UTF-8: %d %v", resp.StatusCode, bad)
	}
}
