package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// TestLlamaServer runs the client against a real llama.cpp llama-server
// (its binary is not shipped: build it as ../shared/design/llamacpp.md
// says and put it on PATH or point POCKETEVAL_LLAMA_SERVER at it) serving the shared
// stories260K model: the runtime conformance suite must pass, engine
// timings and usage must come through, and log-likelihood must be
// reported as unsupported (llama-server refuses echo).
func TestLlamaServer(t *testing.T) {
	bin := os.Getenv("POCKETEVAL_LLAMA_SERVER")
	if bin == "" {
		bin, _ = exec.LookPath("llama-server")
	}
	if bin == "" {
		t.Skip("no llama-server on PATH and POCKETEVAL_LLAMA_SERVER is not set")
	}
	model := filepath.Join(sharedtest.Models(t), "gguf", "stories260K.gguf")
	if _, err := os.Stat(model); err != nil {
		t.Skipf("shared test model missing: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"-t", "1", "-c", "2048", "-np", "4", "--no-webui")
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server did not become healthy: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c, err := New(Options{BaseURL: base + "/v1", RequestTimeout: time.Minute, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m, _ := c.Describe().Settings["server_models"].([]string); len(m) == 0 {
		t.Errorf("Probe recorded no models: %+v", c.Describe())
	}
	for _, noStream := range []bool{false, true} {
		c.noStream.Store(noStream)
		resp, err := c.Generate(context.Background(), runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 16}})
		if err != nil {
			t.Fatal(err)
		}
		if resp.CompletionTokens != 16 || resp.FinishReason != runtime.FinishLength || resp.PromptTokens == 0 || resp.Text == "" {
			t.Errorf("noStream=%v: response %+v, want 16 tokens, length, usage", noStream, resp)
		}
		if resp.Timings.DecodeTokPerSec <= 0 || resp.Timings.PrefillTokPerSec <= 0 || resp.Timings.TimeToFirstToken <= 0 {
			t.Errorf("noStream=%v: timings %+v, want llama-server's", noStream, resp.Timings)
		}
	}
	c.noStream.Store(false)
	_, err = c.LogLikelihood(context.Background(), []runtime.LoglikRequest{{Context: "Once upon", Continuation: " a time"}})
	if !errors.Is(err, runtime.ErrNotSupported) {
		t.Errorf("LogLikelihood = %v, want ErrNotSupported", err)
	}
	runtimetest.Test(t, c, runtimetest.Options{})
}
