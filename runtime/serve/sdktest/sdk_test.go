package sdktest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/serve"
	"github.com/pocketeval/pocketeval/runtime/serve/internal/fake"
)

// sdkDir is where scripts/setup-openai-node.sh installed the SDK. With
// POCKETEVAL_OPENAI_NODE_HOME set (scripts/test.sh sets it) the SDK is
// required; otherwise the test is skipped when it is not installed.
func sdkDir(t *testing.T) string {
	dir := os.Getenv("POCKETEVAL_OPENAI_NODE_HOME")
	required := dir != ""
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "pocketeval", "openai-node")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err != nil {
		if required {
			t.Fatalf("POCKETEVAL_OPENAI_NODE_HOME=%s: the OpenAI Node SDK is not installed there: %v", dir, err)
		}
		t.Skipf("the OpenAI Node SDK is not installed (run scripts/setup-openai-node.sh): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if required {
			t.Fatal("node is not installed")
		}
		t.Skip("node is not installed")
	}
	return dir
}

// held is a runtime whose generations wait until their request is
// cancelled: it fills the server so the next request gets 429.
type held struct{ started chan struct{} }

func (h *held) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	select {
	case h.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return runtime.Response{}, ctx.Err()
}

func (h *held) Close() error { return nil }

// logBuffer collects a server's request log.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func openStory(t *testing.T, template string) runtime.Runtime {
	t.Helper()
	if _, err := llamacpp.LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	model := filepath.Join(sharedtest.Models(t), "gguf", "stories260K.gguf")
	rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: model, Threads: 1, ContextSize: 2048, DefaultMaxTokens: 64, ChatTemplate: template})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func start(t *testing.T, rt runtime.Runtime, opts serve.Options) string {
	t.Helper()
	srv := httptest.NewServer(serve.New(rt, opts))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestOpenAINodeSDK runs sdk.test.mjs against four servers and reports
// each of its checks as a subtest.
func TestOpenAINodeSDK(t *testing.T) {
	dir := sdkDir(t)
	qwen, err := os.ReadFile("../../chattemplate/testdata/templates/qwen2.5-7b-instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	var heldLog logBuffer
	h := &held{started: make(chan struct{}, 8)}
	env := map[string]string{
		"POCKETEVAL_QWEN_URL":   start(t, openStory(t, string(qwen)), serve.Options{APIKey: "sk-qwen", CORSOrigins: []string{"https://app.example"}}),
		"POCKETEVAL_CHATML_URL": start(t, openStory(t, ""), serve.Options{APIKey: "sk-chatml"}),
		"POCKETEVAL_FAKE_URL":   start(t, &fake.Runtime{}, serve.Options{APIKey: "sk-fake", Model: "fake"}),
		"POCKETEVAL_HELD_URL":   start(t, h, serve.Options{APIKey: "sk-held", Model: "held", MaxConcurrent: 1, MaxQueue: 1, Log: slog.New(slog.NewTextHandler(&heldLog, nil))}),
	}

	// The script runs from a scratch directory whose node_modules is the
	// SDK's installation, so the repository gets no node_modules.
	work := t.TempDir()
	script, err := os.ReadFile("sdk.test.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "sdk.test.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "sdk.test.mjs")
	cmd.Dir = work
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	checks := 0
	for sc.Scan() {
		line := sc.Text()
		name, ok := strings.CutPrefix(line, "ok - ")
		fail, bad := strings.CutPrefix(line, "not ok - ")
		switch {
		case ok:
			checks++
			t.Run(name, func(t *testing.T) {})
		case bad:
			checks++
			name, msg, _ := strings.Cut(fail, " # ")
			t.Run(name, func(t *testing.T) { t.Error(msg) })
		default:
			t.Log(line)
		}
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if err != nil && checks == 0 {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if checks < 20 {
		t.Errorf("only %d checks ran\n%s", checks, stderr.String())
	}
	// The requests the script aborted are logged as cancelled.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(heldLog.String(), "status=499") < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := strings.Count(heldLog.String(), "status=499"); n < 2 {
		t.Errorf("aborted requests: %d logged as 499, want 2:\n%s", n, heldLog.String())
	}
}
