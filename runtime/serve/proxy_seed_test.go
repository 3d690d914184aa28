package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/runtime/openai"
)

// TestProxySeed: serve --runtime openai sends upstream the seed it reports
// — the client's when given (0 included), else a fresh one per request —
// never a "seed": 0 the client did not send.
func TestProxySeed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seeds []any
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		seeds = append(seeds, body["seed"])
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x","object":"chat.completion","created":1,"model":"up","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`))
	}))
	defer up.Close()
	c, err := openai.New(openai.Options{BaseURL: up.URL + "/v1", Model: "up", NoStream: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := New(c.Runtime(), Options{})
	var reported []float64
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"x"}]}`,
		`{"messages":[{"role":"user","content":"x"}]}`,
		`{"messages":[{"role":"user","content":"x"}],"seed":0}`,
	} {
		rec := newRecorder()
		h.ServeHTTP(rec, mustRequest(t, body))
		reported = append(reported, rec.json(t)["pocketeval"].(map[string]any)["seed"].(float64))
	}
	if len(seeds) != 3 {
		t.Fatalf("%d upstream requests", len(seeds))
	}
	for i := range seeds {
		if seeds[i] != reported[i] {
			t.Errorf("request %d: upstream seed %v, reported %v", i, seeds[i], reported[i])
		}
	}
	if seeds[0] == 0.0 || seeds[1] == 0.0 || seeds[0] == seeds[1] || seeds[2] != 0.0 {
		t.Errorf("upstream seeds %v: want two fresh ones, then the client's 0", seeds)
	}
}
