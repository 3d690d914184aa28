package models

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// hub serves shared/models like a Hugging Face endpoint:
// /local/<dir>/resolve/main/<file> → shared/models/<dir>/<file>.
func hub(t *testing.T, root string) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 5)
		if len(parts) != 5 || parts[0] != "local" || parts[2] != "resolve" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		http.ServeFile(w, r, filepath.Join(root, parts[1], parts[4]))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

const testRegistry = `{
  "tiny-gguf": {"runtime": "llamacpp", "repo": "local/gguf",
    "files": [{"name": "stories260K.gguf", "sha256": "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d"}]},
  "tiny-mnn": {"runtime": "mnn", "repo": "local/mnn",
    "files": [{"name": "tiny-int4/config.json"}, {"name": "tiny-int4/llm_config.json"}, {"name": "tiny-int4/llm.mnn"},
              {"name": "tiny-int4/llm.mnn.weight"}, {"name": "tiny-int4/tokenizer.txt"}, {"name": "tiny-int4/embeddings_bf16.bin"}],
    "entry": "tiny-int4/config.json"},
  "wrong-sum": {"runtime": "llamacpp", "repo": "local/gguf",
    "files": [{"name": "stories260K.gguf", "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}]}
}`

func TestFetchFromLocalHub(t *testing.T) {
	t.Parallel()
	root := sharedtest.Models(t)
	srv, hits := hub(t, root)
	override := filepath.Join(t.TempDir(), "models.json")
	os.WriteFile(override, []byte(testRegistry), 0o644)
	reg, err := Load(override)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg["qwen3-0.6b-gguf"]; !ok {
		t.Error("override dropped the built-in entries")
	}
	cache := t.TempDir()
	var progressed atomic.Int64
	o := FetchOptions{Cache: cache, Endpoint: srv.URL, Progress: func(string, int64, int64) { progressed.Add(1) }}
	p, err := Fetch(context.Background(), reg["tiny-gguf"], o)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "stories260K.gguf" || progressed.Load() == 0 {
		t.Errorf("entry %s, progress calls %d", p, progressed.Load())
	}
	// Cached: no second download.
	before := hits.Load()
	if _, err := Fetch(context.Background(), reg["tiny-gguf"], o); err != nil || hits.Load() != before {
		t.Errorf("second fetch: err %v, %d new requests", err, hits.Load()-before)
	}
	// Unknown digests are pinned, then enforced.
	p, err = Fetch(context.Background(), reg["tiny-mnn"], o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p, "tiny-int4/config.json") {
		t.Errorf("entry %s", p)
	}
	lock, _ := readLock(cache)
	if len(lock) != 6 {
		t.Errorf("lock has %d pins, want 6", len(lock))
	}
	os.WriteFile(filepath.Join(cache, "tiny-mnn", "tiny-int4", "llm.mnn"), []byte("tampered"), 0o644)
	if _, err := Fetch(context.Background(), reg["tiny-mnn"], o); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("tampered file accepted: %v", err)
	}
	// A wrong published digest is a clear error and leaves nothing behind.
	if _, err := Fetch(context.Background(), reg["wrong-sum"], o); err == nil || !strings.Contains(err.Error(), "want 0000") {
		t.Errorf("wrong digest: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "wrong-sum", "stories260K.gguf")); err == nil {
		t.Error("a file with a wrong digest was kept")
	}
}

func TestRegistryErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{`{"x": {"repo": "a/b", "files": [{"name": "f"}]}}`, "runtime"},
		{`{"x": {"runtime": "mnn", "files": [{"name": "f"}]}}`, "repo"},
		{`{"x": {"runtime": "mnn", "repo": "a/b"}}`, "files"},
		{`{"x": {"runtime": "mnn", "repo": "a/b", "files": [], "bogus": 1}}`, "bogus"},
	} {
		f := filepath.Join(t.TempDir(), "m.json")
		os.WriteFile(f, []byte(c.text), 0o644)
		if _, err := Load(f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s) = %v, want %q", c.text, err, c.want)
		}
	}
	reg, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"mnn-pocket-0.3b", "mnn-pocket-0.3b-gguf-q4_1", "qwen3-0.6b-gguf", "qwen3-0.6b-mnn", "smollm2-360m-instruct-gguf", "gemma-3-270m-it-gguf"} {
		if reg[n] == nil {
			t.Errorf("registry lacks %s", n)
		}
	}
	if u := reg["qwen3-0.6b-gguf"].URL(reg["qwen3-0.6b-gguf"].Files[0], ""); u != "https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q8_0.gguf" {
		t.Errorf("URL %s", u)
	}
}
