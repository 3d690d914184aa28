package cli

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
	"github.com/spf13/pflag"
)

func TestNewCmdServeFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    string
		wantErr string
		check   func(*testing.T, *ServeOptions)
	}{
		{name: "defaults", args: "--runtime fake", check: func(t *testing.T, o *ServeOptions) {
			if o.Addr != "127.0.0.1:8080" || o.MaxConcurrent != 1 || o.MaxQueue != 64 || o.Grace != 30*time.Second {
				t.Errorf("defaults = %+v", o)
			}
		}},
		{name: "all", args: "--runtime mnn --model m --addr 0.0.0.0:9000 --parallel 2 --max-queue 3 --served-model-name pocket --require-key-env K --shutdown-grace 5s --quiet",
			check: func(t *testing.T, o *ServeOptions) {
				if o.Addr != "0.0.0.0:9000" || o.MaxConcurrent != 2 || o.MaxQueue != 3 || o.ServedModel != "pocket" || o.KeyEnv != "K" || o.Grace != 5*time.Second || !o.Quiet || o.Runtime.Model != "m" {
					t.Errorf("parsed = %+v", o)
				}
			}},
		{name: "no runtime", args: "", wantErr: "--runtime is required"},
		{name: "bad addr", args: "--runtime x --addr 8080", wantErr: "--addr"},
		{name: "bad parallel", args: "--runtime x --parallel 0", wantErr: "--parallel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := TestStreams()
			var got *ServeOptions
			cmd := NewCmdServe(&Factory{IO: ios}, func(o *ServeOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tt.args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, got)
		})
	}
}

// startServe runs serveRun(opts) in the background and returns the address
// it listens on and a stop function that cancels it and returns its error.
func startServe(tb testing.TB, opts *ServeOptions) (net.Addr, func() error) {
	tb.Helper()
	ready := make(chan net.Addr, 1)
	opts.Ready = func(a net.Addr) { ready <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	select {
	case addr := <-ready:
		return addr, func() error { cancel(); return <-done }
	case err := <-done:
		cancel()
		tb.Fatalf("serveRun ended early: %v", err)
		return nil, nil
	}
}

// TestServeRun serves a fake runtime on a free port, queries it with the
// openai runtime, and stops it by cancelling the context.
func TestServeRun(t *testing.T) {
	ios, _, _, errOut := TestStreams()
	t.Setenv("POCKETEVAL_TEST_SERVE_KEY", "k3y")
	var opened RuntimeOptions
	opts := &ServeOptions{
		IO:            ios,
		Runtime:       RuntimeOptions{Name: "fake"},
		Addr:          "127.0.0.1:0",
		MaxConcurrent: 2,
		MaxQueue:      4,
		KeyEnv:        "POCKETEVAL_TEST_SERVE_KEY",
		Grace:         time.Second,
		Open: func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
			opened = o
			return &runtimetest.Fake{}, nil
		},
	}
	addr, stop := startServe(t, opts)
	if opened.Workers != 2 {
		t.Errorf("runtime opened with %d workers, want --parallel's 2", opened.Workers)
	}
	base := "http://" + addr.String()
	resp, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("/health: %d", resp.StatusCode)
	}
	c, err := openai.New(openai.Options{BaseURL: base + "/v1", APIKey: "k3y", RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want, _ := (&runtimetest.Fake{}).Generate(context.Background(), runtime.Request{Prompt: "hello", Gen: runtime.GenConfig{MaxTokens: 5}})
	got, err := c.Generate(context.Background(), runtime.Request{Prompt: "hello", Gen: runtime.GenConfig{MaxTokens: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text || got.CompletionTokens != want.CompletionTokens {
		t.Errorf("served %q (%d), direct %q (%d)", got.Text, got.CompletionTokens, want.Text, want.CompletionTokens)
	}
	if err := stop(); err != nil {
		t.Errorf("serveRun after cancel = %v, want nil", err)
	}
	log := errOut.String()
	for _, s := range []string{"serving fake on http://127.0.0.1:", "path=/v1/completions status=200", "server stopped"} {
		if !strings.Contains(log, s) {
			t.Errorf("stderr lacks %q:\n%s", s, log)
		}
	}
	if strings.Contains(log, "k3y") || strings.Contains(log, "hello") {
		t.Errorf("stderr leaks the key or the prompt:\n%s", log)
	}
}

func TestServeRunMissingKey(t *testing.T) {
	ios, _, _, _ := TestStreams()
	t.Setenv("POCKETEVAL_TEST_EMPTY_KEY", "")
	opts := &ServeOptions{IO: ios, Runtime: RuntimeOptions{Name: "fake"}, Addr: "127.0.0.1:0", MaxConcurrent: 1, KeyEnv: "POCKETEVAL_TEST_EMPTY_KEY",
		Open: func(context.Context, RuntimeOptions) (runtime.Runtime, error) {
			t.Error("runtime opened")
			return nil, nil
		}}
	if err := serveRun(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "POCKETEVAL_TEST_EMPTY_KEY") {
		t.Errorf("error = %v", err)
	}
}

func TestOpenRuntimeFlags(t *testing.T) {
	t.Parallel()
	okServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			t.Errorf("probe asked for %s", r.URL.Path)
		}
		io.WriteString(w, `{"object":"list","data":[{"id":"m"}]}`)
	}))
	t.Cleanup(okServer.Close)
	keyServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"bad key"}}`)
	}))
	t.Cleanup(keyServer.Close)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	tests := []struct {
		name    string
		args    []string
		wantErr string
		usage   bool // a usage error (*FlagError, exit 2)
	}{
		{"runtime required", nil, "--runtime is required", true},
		{"unknown runtime", []string{"--runtime", "onnx"}, `unknown runtime "onnx"`, true},
		{"openai needs base url", []string{"--runtime", "openai"}, "--base-url is required", true},
		{"openai bad endpoint", []string{"--runtime", "openai", "--base-url", "http://x/v1", "--endpoint", "embed"}, "--endpoint", true},
		{"openai ok", []string{"--runtime", "openai", "--base-url", okServer.URL + "/v1", "--max-retries", "1"}, "", false},
		{"openai bad key", []string{"--runtime", "openai", "--base-url", keyServer.URL + "/v1", "--max-retries", "1"}, "server returned 401", false},
		{"openai unreachable", []string{"--runtime", "openai", "--base-url", deadURL + "/v1", "--max-retries", "0"}, "connection", false},
		{"another runtime's flag", []string{"--runtime", "openai", "--base-url", "http://x/v1", "--backend", "opencl", "--ctx-size", "9"}, "--backend (mnn), --ctx-size (llamacpp): not flags of --runtime openai", true},
		{"replay needs file", []string{"--runtime", "replay"}, "--predictions FILE is required", true},
		{"replay missing file", []string{"--runtime", "replay", "--predictions", "/nonexistent/p.jsonl"}, "/nonexistent/p.jsonl", true}, // exit 2: the file names a missing input
		{"llamacpp needs model", []string{"--runtime", "llamacpp"}, "--model is required for --runtime llamacpp", true},
		{"llamacpp negative context", []string{"--runtime", "llamacpp", "--model", "m.gguf", "--ctx-size", "-1"}, "--ctx-size must not be negative", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var o RuntimeOptions
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			rt, err := OpenRuntime(context.Background(), o)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				rt.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want %q", err, tt.wantErr)
			}
			var fe *FlagError
			if errors.As(err, &fe) != tt.usage {
				t.Errorf("error %v: usage error = %v, want %v", err, !tt.usage, tt.usage)
			}
		})
	}
}
