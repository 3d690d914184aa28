package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/serve"
)

// callingRuntime is a deterministic model for BFCL's multi-turn tasks: it
// answers a user's turn with calls (in prompt mode "[ls(), pwd()]", with
// tools ls and pwd as tool calls) and the execution results with text, so
// every turn runs one step on BFCL's backends and ends.
type callingRuntime struct{}

func (callingRuntime) Generate(_ context.Context, req runtime.Request) (runtime.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	resp := runtime.Response{Text: "Done.", FinishReason: runtime.FinishStop, PromptTokens: len(req.Messages), CompletionTokens: 2}
	feedback := last.Role == "tool" || strings.HasPrefix(last.Content, "[{'role': 'tool'")
	switch {
	case feedback:
	case len(req.Tools) > 0:
		resp.Text = ""
		resp.ToolCalls = []runtime.ToolCall{{Name: "ls", Arguments: `{"a": true}`}, {Name: "pwd", Arguments: `{}`}}
	default:
		resp.Text = "[ls(a=True), pwd()]"
	}
	return resp, nil
}

func (callingRuntime) Close() error { return nil }

// servedCalling serves callingRuntime as `pocketeval serve` does, on
// 127.0.0.1 port 0.
func servedCalling(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(serve.New(callingRuntime{}, serve.Options{MaxConcurrent: 4}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestBFCLMultiTurnThroughServe runs a multi-turn task in both modes
// through `pocketeval serve`'s handler and --runtime openai: every turn
// executes the model's calls on BFCL's backends in the sandbox, the
// records hold the whole conversation, and a replay of the samples file
// gives the same scores.
func TestBFCLMultiTurnThroughServe(t *testing.T) {
	data := sharedtest.Datasets(t)
	url := servedCalling(t)
	for _, task := range []string{"bfcl_multi_turn_base", "bfcl_multi_turn_miss_func_fc", "bfcl_multi_turn_long_context"} {
		t.Run(task, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			ts := e2eRunTask(t, dir, task, 2, "accuracy", "--runtime", "openai", "--base-url", url, "--model", "calling",
				"--max-retries", "0", "--limit", "2", "--data-dir", data)
			lines := e2eReadSamples(t, dir, task)
			for _, l := range lines {
				var turns [][]any
				if l.Response == nil || json.Unmarshal([]byte(*l.Response), &turns) != nil || len(turns) < 2 {
					t.Errorf("%s: response is not a conversation's turns: %v", l.ID, l.Response)
				}
				if l.Details["valid"] == nil {
					t.Errorf("%s: no verdict: %v", l.ID, l.Details)
				}
			}
			recs, _, err := results.ReadTaskSamples(dir, task)
			if err != nil {
				t.Fatal(err)
			}
			tools := 0
			for _, m := range recs[0].Messages {
				if m.Role == "tool" || strings.HasPrefix(m.Content, "[{'role': 'tool', 'name': 'ls(a=True)'") {
					tools++
				}
			}
			if tools == 0 {
				t.Errorf("the record's messages hold no execution results: %+v", recs[0].Messages)
			}
			rep := e2eRunTask(t, filepath.Join(t.TempDir(), "replay"), task, 2, "accuracy", "--runtime", "replay",
				"--predictions", results.SamplesPath(dir, task), "--limit", "2", "--data-dir", data)
			if rep.Primary != ts.Primary {
				t.Errorf("replay scores %v, the run %v", rep.Primary, ts.Primary)
			}
		})
	}
}

// TestBFCLMultiTurnKillResume: a multi-turn run killed with SIGKILL and
// resumed gives the records of an uninterrupted run, byte for byte
// (timings aside).
func TestBFCLMultiTurnKillResume(t *testing.T) {
	data := sharedtest.Datasets(t)
	url := servedCalling(t)
	tasks := []string{"bfcl_multi_turn_base", "bfcl_multi_turn_miss_param_fc"}
	args := func(out string) []string {
		return []string{"run", "--runtime", "openai", "--base-url", url, "--model", "calling", "--max-retries", "0",
			"--tasks", strings.Join(tasks, ","), "--limit", "3", "--concurrency", "2", "--data-dir", data, "--out", out}
	}
	base := t.TempDir()
	clean := filepath.Join(base, "clean")
	if code, out, errOut := runReal(t, args(clean)...); code != 0 {
		t.Fatalf("clean run: exit %d\n%s\n%s", code, out, errOut)
	}
	want := samplesBytes(t, clean, tasks...)
	points := []int{1, 4}
	if testing.Short() {
		points = points[1:]
	}
	for _, at := range points {
		dir := filepath.Join(base, "killed", time.Now().Format("150405.000000"))
		cmd := selfCommand(args(dir)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		finished := false
	wait:
		for countLines(dir, tasks...) < at {
			select {
			case <-done:
				finished = true
				break wait
			case <-time.After(2 * time.Millisecond):
			}
		}
		if !finished {
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
		} else {
			t.Logf("kill after %d lines: the run finished first", at)
		}
		if code, out, errOut := runReal(t, args(dir)...); code != 0 {
			t.Fatalf("resume after kill at %d lines: exit %d\n%s\n%s", at, code, out, errOut)
		}
		if got := samplesBytes(t, dir, tasks...); got != want {
			t.Errorf("killed after %d lines and resumed: samples differ from a clean run:\n%s\n---\n%s", at, want, got)
		}
	}
}

// TestBFCLMultiTurnStoryModel runs bfcl_multi_turn_base end to end on
// the story model, in process through llama.cpp and through `pocketeval
// serve` with --runtime openai, on its smallest entry (one backend's
// function documents are still ~19,000 of the model's tokens, a prefill of
// minutes on one thread), and requires the same conversation both ways.
// The other categories run the same loop; TestBFCLMultiTurnThroughServe
// and TestBFCLMultiTurnKillResume run them with a scripted model.
func TestBFCLMultiTurnStoryModel(t *testing.T) {
	needLlama(t)
	if os.Getenv("POCKETEVAL_BFCLMT_STORY") == "" {
		// On a machine shared by ~10 jobs the first prefill alone took
		// more than 3.5 CPU-minutes (16 minutes of wall clock) and had
		// not ended: past go test's default timeout.
		t.Skip("set POCKETEVAL_BFCLMT_STORY=1: two prefills of ~19,000 tokens on one thread take many minutes")
	}
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	const task = "bfcl_multi_turn_base"
	common := []string{"--tasks", task, "--samples", task + ":multi_turn_base_100", "--max-tokens", "4", "--data-dir", data}
	e2eLlamaSlots <- struct{}{}
	defer func() { <-e2eLlamaSlots }()
	dir := filepath.Join(t.TempDir(), "llamacpp")
	code, out, errOut := runReal(t, append([]string{"run", "--runtime", "llamacpp", "--model", model, "--threads", "1",
		"--ctx-size", "24576", "--ignore-limits", "--out", dir}, common...)...)
	if code != 0 {
		t.Fatalf("llamacpp: exit %d\n%s\n%s", code, out, errOut)
	}
	// `pocketeval serve` as its command line configures it.
	f, _, _ := realFactory()
	var so *ServeOptions
	sc := NewCmdServe(f, func(o *ServeOptions) error { so = o; return nil })
	sc.SetArgs([]string{"--runtime", "llamacpp", "--model", model, "--threads", "1", "--ctx-size", "24576", "--ignore-limits",
		"--addr", "127.0.0.1:0", "--parallel", "1"})
	if err := sc.Execute(); err != nil || so == nil {
		t.Fatalf("serve flags: %v", err)
	}
	so.Quiet = true
	addr, stop := startServe(t, so)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve shutdown: %v", err)
		}
	}()
	sdir := filepath.Join(t.TempDir(), "serve")
	code, out, errOut = runReal(t, append([]string{"run", "--runtime", "openai", "--base-url", "http://" + addr.String() + "/v1",
		"--model", "stories", "--max-retries", "0", "--request-timeout", "30m", "--out", sdir}, common...)...)
	if code != 0 {
		t.Fatalf("serve: exit %d\n%s\n%s", code, out, errOut)
	}
	a, b := e2eReadSamples(t, dir, task), e2eReadSamples(t, sdir, task)
	if len(a) != 1 || len(b) != 1 || a[0].Error != "" || b[0].Error != "" {
		t.Fatalf("records %+v / %+v", a, b)
	}
	var turns [][]any
	if err := json.Unmarshal([]byte(*a[0].Response), &turns); err != nil || len(turns) == 0 {
		t.Errorf("response %s is not a conversation's turns: %v", *a[0].Response, err)
	}
	if *a[0].Response != *b[0].Response || a[0].Details["error_type"] != b[0].Details["error_type"] {
		t.Errorf("in process %s %v, through serve %s %v", *a[0].Response, a[0].Details, *b[0].Response, b[0].Details)
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Error(err)
	}
}
