package bfcl_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// TestLiveAndReplayDecodeTheSameText: in a live function-calling run the
// runtime parses the calls out of the model's text (runtime/toolcall, as
// vLLM's parsers do) and keeps the whole text (runtime.Response.Raw);
// with a BFCL handler that reads text, the task decodes that text with the
// handler, exactly as it decodes the same text replayed from a BFCL result
// file. So the two give the same verdict even where toolcall and the
// handler read a text differently (calls without the newlines Qwen's
// handler requires, a malformed call).
func TestLiveAndReplayDecodeTheSameText(t *testing.T) {
	data := sharedDir(t, "datasets")
	const call = `{"name": "math_factorial", "arguments": {"number": 5}}`
	texts := []string{
		"<tool_call>\n" + call + "\n</tool_call>",
		"Sure.\n<tool_call>\n" + call + "\n</tool_call>",
		"<tool_call>" + call + "</tool_call>",                                                      // toolcall finds it, Qwen's handler does not
		"<tool_call>\n" + call + "\n</tool_call>\n<tool_call>\n{\"name\"",                          // an unterminated second call
		"<tool_call>\n{\"name\": \"math_factorial\", \"arguments\": {\"number\": 5}\n</tool_call>", // not JSON: no call for either
		"[math_factorial(number=5)]",
	}
	for _, tc := range []struct{ task, handler string }{
		{"bfcl_simple_fc", "qwen_fc"}, {"bfcl_simple_fc", "hermes"}, {"bfcl_v2_simple_fc", "hermes"}, {"bfcl_simple_fc", "xlam"},
	} {
		base := task(t, tc.task).(*bfcl.Task)
		tk, err := base.WithHandler(tc.handler)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := tk.Load(context.Background(), evals.LoadConfig{DataDir: data})
		if err != nil {
			t.Fatal(err)
		}
		s := ds.Samples[1]
		req, err := tk.Prompt(ds, s, evals.PromptConfig{Chat: true})
		if err != nil {
			t.Fatal(err)
		}
		parsedDiffer := 0
		for _, text := range texts {
			resp := runtime.Response{Text: text}
			toolcall.Apply("{{ '<tool_call>' }}", req, &resp)
			if len(resp.ToolCalls) > 0 && resp.Raw != text {
				t.Fatalf("toolcall.Apply kept %q of %q", resp.Raw, text)
			}
			live := evals.Output{Text: resp.Text, Raw: resp.Text, ToolCalls: resp.ToolCalls, CallText: resp.Raw}
			replayed := evals.Output{Text: text, Raw: text}
			a, err := tk.Score(context.Background(), s, live)
			if err != nil {
				t.Fatal(err)
			}
			b, err := tk.Score(context.Background(), s, replayed)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s --bfcl-handler %s, %q: live %+v, replayed %+v", tc.task, tc.handler, text, a, b)
			}
			// The calls toolcall parsed, scored as calls, would not
			// always get the handler's verdict: the handler must be
			// what decides.
			if len(resp.ToolCalls) > 0 {
				c, err := base.Score(context.Background(), s, evals.Output{Text: resp.Text, ToolCalls: resp.ToolCalls})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(c.Details, a.Details) {
					parsedDiffer++
				}
			}
		}
		if tc.handler == "qwen_fc" && parsedDiffer == 0 {
			t.Errorf("%s: no text where toolcall's calls and Qwen's handler disagree: the test proves nothing", tc.task)
		}
	}
}
