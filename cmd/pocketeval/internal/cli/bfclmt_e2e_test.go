package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
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

// storyEntries are the entries TestBFCLMultiTurnStoryModel runs: in each
// category one with the shortest prompt (a legitimate choice for an end
// to end test: the loop, the backends and the checker are the same for
// every entry). BFCL's system prompt with one backend's function
// documents is ~19,000 of the story model's tokens (its vocabulary has 512
// tokens); the TradingBot entries have the shortest. base_105 and
// long_context_105 ask the same questions (2 turns), miss_param_105 adds
// a turn; miss_func_146 (5 turns) holds back place_order, the 15th of the
// 20 documents, so its system prompt shares the first 14 with the others.
var storyEntries = map[string]string{
	"bfcl_multi_turn_base":         "multi_turn_base_105",
	"bfcl_multi_turn_miss_param":   "multi_turn_miss_param_105",
	"bfcl_multi_turn_long_context": "multi_turn_long_context_105",
	"bfcl_multi_turn_miss_func":    "multi_turn_miss_func_146",
}

// sharedRuntime is an open runtime that several commands of one test use
// in turn: Close leaves it open (the test closes it).
type sharedRuntime struct{ *llamacpp.Runtime }

func (sharedRuntime) Close() error { return nil }

// sharedFlags are the llamacpp driver's flags, parsed and validated as
// the command line gives them, whose Open returns the shared runtime.
type sharedFlags struct {
	drivers.Flags
	rt runtime.Runtime
}

func (f sharedFlags) Open(context.Context, drivers.Common) (runtime.Runtime, error) { return f.rt, nil }

func (f sharedFlags) Contexts(c drivers.Common) int {
	if cc, ok := f.Flags.(drivers.ContextCounter); ok {
		return cc.Contexts(c)
	}
	return c.Workers
}

func (f sharedFlags) SpeculativeHelp() string {
	if sp, ok := f.Flags.(drivers.Speculator); ok {
		return sp.SpeculativeHelp()
	}
	return ""
}

func (f sharedFlags) Settings() map[string]any {
	if s, ok := f.Flags.(drivers.OutputSettings); ok {
		return s.Settings()
	}
	return nil
}

// TestBFCLMultiTurnStoryModel runs the four multi-turn categories (prompt
// mode) end to end on the story model, in process through llama.cpp
// (`run --runtime llamacpp`) and through `pocketeval serve` (`run
// --runtime openai`), one entry each (storyEntries), and requires the same
// conversations and verdicts both ways.
//
// Every request of a conversation repeats the whole conversation so far:
// ~19,000 tokens of function documents, then a few hundred of turns. What
// makes this affordable is exact prefix reuse (--batch off with the prefix
// cache, runtime/llamacpp/grid.go): a request keeps the whole grid chunks
// its context holds and evaluates only the rest, with the bits of an
// evaluation from an empty cache. So both commands use one llama.cpp
// runtime, one context of one sequence (each command still parses and
// validates its own flags; only opening is shared), with 64-token chunks
// (a request evaluates at most 63 tokens it shares with the previous one)
// and flash attention off (on CPU with the story model's 8-wide heads it
// was 3.6 times slower at a 4,096-token prefill). The conversations run
// one after another: base, miss_param and long_context (the whole
// document list) in process then through serve, then miss_func (one
// document held back) likewise, so the 19,000-token prefill is computed
// once and the list changes once. The served conversations find the
// in-process ones' prefixes in the cache, so the comparison also checks
// that reuse changes no bit.
func TestBFCLMultiTurnStoryModel(t *testing.T) {
	needLlama(t)
	if testing.Short() {
		t.Skip("-short: a 19,000-token prefill and ~25 requests on the story model")
	}
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	e2eLlamaSlots <- struct{}{}
	defer func() { <-e2eLlamaSlots }()
	const ctxSize = 24576
	rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: model, Threads: 1, ContextSize: ctxSize,
		Batch: "off", PrefixCache: "on", BatchSize: 64, FlashAttention: "off"})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	shared := sharedRuntime{rt}
	f, _, _ := realFactory()
	all := f.Runtimes()
	f.Runtimes = func() []drivers.Driver {
		out := make([]drivers.Driver, len(all))
		for i, d := range all {
			if d.Name == "llamacpp" {
				newFlags := d.NewFlags
				d.NewFlags = func() drivers.Flags { return sharedFlags{Flags: newFlags(), rt: shared} }
			}
			out[i] = d
		}
		return out
	}
	order := func(tasks ...string) []string {
		var ids []string
		for _, task := range tasks {
			ids = append(ids, task+":"+storyEntries[task])
		}
		return []string{"--tasks", strings.Join(tasks, ","), "--samples", strings.Join(ids, ","), "--concurrency", "1",
			"--max-tokens", "4", "--data-dir", data}
	}
	exec := func(args ...string) {
		t.Helper()
		io, _, out, errb := TestStreams()
		f.IO = io
		if code := Execute(context.Background(), f, args); code != 0 {
			t.Fatalf("pocketeval %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errb)
		}
	}
	// `pocketeval serve` as its command line configures it.
	var so *ServeOptions
	sc := NewCmdServe(f, func(o *ServeOptions) error { so = o; return nil })
	sc.SetArgs([]string{"--runtime", "llamacpp", "--model", model, "--threads", "1", "--ctx-size", fmt.Sprint(ctxSize), "--ignore-limits",
		"--addr", "127.0.0.1:0", "--parallel", "1"})
	if err := sc.Execute(); err != nil || so == nil {
		t.Fatalf("serve flags: %v", err)
	}
	so.Quiet = true
	so.Open = func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
		if err := o.Validate(); err != nil {
			return nil, err
		}
		return shared, nil
	}
	addr, stop := startServe(t, so)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve shutdown: %v", err)
		}
	}()
	inProcess := func(dir string, tasks ...string) {
		exec(append([]string{"run", "--runtime", "llamacpp", "--model", model, "--threads", "1",
			"--ctx-size", fmt.Sprint(ctxSize), "--ignore-limits", "--out", dir}, order(tasks...)...)...)
	}
	served := func(dir string, tasks ...string) {
		exec(append([]string{"run", "--runtime", "openai", "--base-url", "http://" + addr.String() + "/v1",
			"--model", "stories", "--max-retries", "0", "--request-timeout", "30m", "--out", dir}, order(tasks...)...)...)
	}
	// The three categories with the whole document list, in process then
	// through serve; then miss_func, whose list lacks one document, the
	// same way: the list changes once.
	base := t.TempDir()
	dirs := map[string][2]string{}
	var stats []string
	for _, group := range [][]string{
		{"bfcl_multi_turn_base", "bfcl_multi_turn_miss_param", "bfcl_multi_turn_long_context"},
		{"bfcl_multi_turn_miss_func"},
	} {
		a, b := filepath.Join(base, group[0], "llamacpp"), filepath.Join(base, group[0], "serve")
		before := rt.PrefillStats()
		inProcess(a, group...)
		mid := rt.PrefillStats()
		served(b, group...)
		after := rt.PrefillStats()
		stats = append(stats, fmt.Sprintf("%s: in process %d of %d computed, through serve %d of %d", strings.Join(group, ","),
			mid.Computed-before.Computed, mid.Requested-before.Requested, after.Computed-mid.Computed, after.Requested-mid.Requested))
		for _, task := range group {
			dirs[task] = [2]string{a, b}
		}
	}
	total := rt.PrefillStats()
	t.Logf("prompt tokens: %s", strings.Join(stats, "; "))

	for task, id := range storyEntries {
		dir, sdir := dirs[task][0], dirs[task][1]
		a, b := e2eReadSamples(t, dir, task), e2eReadSamples(t, sdir, task)
		if len(a) != 1 || len(b) != 1 || a[0].ID != id || a[0].Error != "" || b[0].Error != "" {
			t.Fatalf("%s: records %+v / %+v", task, a, b)
		}
		var turns [][]any
		if err := json.Unmarshal([]byte(*a[0].Response), &turns); err != nil || len(turns) == 0 {
			t.Errorf("%s: response %s is not a conversation's turns: %v", task, *a[0].Response, err)
		}
		if a[0].Details["valid"] == nil {
			t.Errorf("%s: no verdict: %v", task, a[0].Details)
		}
		if *a[0].Response != *b[0].Response || a[0].Details["error_type"] != b[0].Details["error_type"] {
			t.Errorf("%s: in process %s %v, through serve %s %v", task, *a[0].Response, a[0].Details, *b[0].Response, b[0].Details)
		}
		for _, d := range []string{dir, sdir} {
			if _, err := os.Stat(filepath.Join(d, "summary.json")); err != nil {
				t.Error(err)
			}
		}
	}
	// Whole chunks were reused: far fewer tokens computed than requested
	// (without reuse every request would evaluate its whole prompt).
	if 4*total.Computed > total.Requested {
		t.Errorf("%d of %d prompt tokens computed: the prefix cache was not used", total.Computed, total.Requested)
	}
}
