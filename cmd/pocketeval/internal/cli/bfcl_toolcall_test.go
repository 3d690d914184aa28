package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/serve"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// hermesRuntime answers a request with tools in Hermes' format, as a
// model with a Hermes tool template would, and parses the calls out of the
// text as the runtimes that render templates do (toolcall.Apply): some
// answers the way Qwen's BFCL handler reads them, some without the
// newlines it requires, one with text before the call, one malformed.
type hermesRuntime struct{}

func (hermesRuntime) Generate(_ context.Context, req runtime.Request) (runtime.Response, error) {
	var tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(req.Tools, &tools); err != nil || len(tools) == 0 {
		return runtime.Response{}, fmt.Errorf("no tools: %v", err)
	}
	call := fmt.Sprintf(`{"name": %q, "arguments": {"x": 1}}`, tools[0].Function.Name)
	n := 0 // the request's id does not reach a server: its question picks the text
	for _, c := range []byte(req.Messages[len(req.Messages)-1].Content) {
		n += int(c)
	}
	text := []string{
		"<tool_call>\n" + call + "\n</tool_call>",
		"<tool_call>" + call + "</tool_call>",
		"Sure.\n<tool_call>\n" + call + "\n</tool_call>",
		"<tool_call>\n" + call[:len(call)-1] + "\n</tool_call>",
	}[n%4]
	resp := runtime.Response{Text: text, FinishReason: runtime.FinishStop, PromptTokens: 1, CompletionTokens: 1}
	toolcall.Apply("<tool_call>", req, &resp)
	return resp, nil
}

func (hermesRuntime) Close() error { return nil }

// TestBFCLToolCallsLiveAndReplayed: a function-calling run through
// `pocketeval serve` records the calls the runtime parsed and the whole
// text they came from (tool_calls, raw_response); replaying its samples
// file gives the same records, and replaying the texts as a BFCL result
// file gives the same verdicts: with a handler that reads text (the text
// decoded by the handler, live or replayed) and without one (the calls).
func TestBFCLToolCallsLiveAndReplayed(t *testing.T) {
	data := sharedtest.Datasets(t)
	srv := httptest.NewServer(serve.New(hermesRuntime{}, serve.Options{MaxConcurrent: 2}))
	defer srv.Close()
	const task = "bfcl_simple_fc"
	for _, handler := range []string{"", "qwen_fc"} {
		t.Run("handler="+handler, func(t *testing.T) {
			base := t.TempDir()
			run := func(dir string, args ...string) {
				t.Helper()
				args = append([]string{"run", "--tasks", task, "--limit", "12", "--data-dir", data, "--out", dir}, args...)
				if handler != "" {
					args = append(args, "--bfcl-handler", handler)
				}
				if code, out, errOut := runReal(t, args...); code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
				}
			}
			live := filepath.Join(base, "live")
			run(live, "--runtime", "openai", "--base-url", srv.URL+"/v1", "--model", "hermes", "--max-retries", "0")
			recs, _, err := results.ReadTaskSamples(live, task)
			if err != nil {
				t.Fatal(err)
			}
			parsed := 0
			var bfclLines []string
			for _, r := range recs {
				if len(r.ToolCalls) > 0 {
					parsed++
					if !strings.Contains(r.RawResponse, "<tool_call>") || strings.Contains(r.Response, "<tool_call>") {
						t.Errorf("%s: response %q, raw_response %q", r.ID, r.Response, r.RawResponse)
					}
				}
				text := r.Response
				if r.RawResponse != "" {
					text = r.RawResponse
				}
				line, _ := json.Marshal(map[string]string{"id": r.ID, "result": text})
				bfclLines = append(bfclLines, string(line))
			}
			if parsed == 0 || parsed == len(recs) {
				t.Errorf("%d of %d answers had their calls parsed: want some, not all", parsed, len(recs))
			}
			replayed := filepath.Join(base, "replayed")
			run(replayed, "--runtime", "replay", "--predictions", results.SamplesPath(live, task))
			again, _, err := results.ReadTaskSamples(replayed, task)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range recs {
				// A replay knows no token counts or timings.
				r.PromptTokens, r.CompletionTokens, r.Timings, r.Line = 0, 0, nil, again[i].Line
				a, _ := json.Marshal(r)
				b, _ := json.Marshal(again[i])
				if string(a) != string(b) {
					t.Errorf("replaying the samples changed the record:\n%s\n%s", a, b)
				}
			}
			if handler == "" {
				return // a BFCL FC result is a list of calls, not text
			}
			pred := filepath.Join(base, "result.json")
			if err := os.WriteFile(pred, []byte(strings.Join(bfclLines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			official := filepath.Join(base, "bfcl")
			run(official, "--runtime", "replay", "--predictions", pred)
			a, b := e2eReadSamples(t, live, task), e2eReadSamples(t, official, task)
			for i := range a {
				if fmt.Sprint(a[i].Scores, a[i].Details, a[i].Extracted) != fmt.Sprint(b[i].Scores, b[i].Details, b[i].Extracted) {
					t.Errorf("%s: live %v %v %v, the text replayed %v %v %v", a[i].ID, a[i].Scores, a[i].Details, a[i].Extracted, b[i].Scores, b[i].Details, b[i].Extracted)
				}
			}
		})
	}
}
