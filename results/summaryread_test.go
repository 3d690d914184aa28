package results

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// full is a record with every field set.
func full(id string, index, repeat int, errText string) Record {
	scored := "scored " + id
	r := Record{
		Task: "task", ID: id, Repeat: repeat, Index: index,
		Messages:       []runtime.Message{{Role: "user", Content: "question " + id + " \"quoted\"\n"}},
		RenderedPrompt: "<|im_start|>user\nquestion", Prompt: "raw",
		Gen:      &runtime.GenConfig{MaxTokens: 9, Temperature: 0.5, TopP: 0.9, Seed: 3, Stop: []string{"\n\n"}},
		Loglik:   []runtime.LoglikRequest{{Context: "c", Continuation: " x"}},
		Response: "answer é 😀 \\ " + id, Scored: &scored, Thinking: "closed",
		ToolCalls:     []runtime.ToolCall{{ID: "call_0", Name: "f", Arguments: `{"a":1}`}},
		RawResponse:   "answer <tool_call>{\"name\": \"f\"}</tool_call>",
		LoglikResults: []runtime.LoglikResult{{LogProb: -1.5, IsGreedy: true, Tokens: 2}},
		Extracted:     "B", ExtractionFailed: index%2 == 0, Target: "B",
		Scores:       map[string]float64{"acc": 1, "f1": 0.25},
		Details:      map[string]any{"method": "strict", "n": 3.0, "list": []any{true, "x"}, "nested": map[string]any{"k": nil}},
		FinishReason: "length", PromptTokens: 12, CompletionTokens: 7, Error: errText, Retryable: errText != "",
		Timings: &runtime.Timings{TimeToFirstToken: time.Millisecond, DecodeTokPerSec: 12.5},
	}
	return r
}

// TestFullSetsEveryField: full must set every field of Record, so that a
// field added to Record and forgotten by ReadTaskForSummary's decoder fails
// TestReadTaskForSummaryMatchesReadTaskSamples.
func TestFullSetsEveryField(t *testing.T) {
	r := full("a", 2, 1, "runtime: boom")
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		if v.Type().Field(i).Tag.Get("json") == "-" {
			continue // not in the file
		}
		if v.Field(i).IsZero() {
			t.Errorf("full leaves Record.%s unset", v.Type().Field(i).Name)
		}
	}
}

// slim is what ReadTaskForSummary keeps of r.
func slim(r Record) Record {
	r.Messages, r.Prompt, r.RenderedPrompt, r.Loglik, r.Gen = nil, "", "", nil, nil
	r.Response, r.Scored, r.LoglikResults, r.Target = "", nil, nil, ""
	r.ToolCalls, r.RawResponse = nil, ""
	return r
}

// TestReadTaskForSummaryMatchesReadTaskSamples: the same records as
// ReadTaskSamples (less the large fields), the same handling of retried
// samples, and with sort the same file as RewriteSorted makes.
func TestReadTaskForSummaryMatchesReadTaskSamples(t *testing.T) {
	t.Parallel()
	content := line(t, full("c", 2, 0, "")) + line(t, full("a", 0, 1, "")) + "\n" +
		line(t, full("b", 1, 0, "runtime: boom")) + line(t, full("a", 0, 0, "")) +
		line(t, full("b", 1, 0, "")) + // a retried error: replaces the failed line
		line(t, full("d", 1, 0, "")) + line(t, full("e", 4, 0, "runtime: timeout")) + `{"task":"task","id":"torn`
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		os.MkdirAll(filepath.Join(d, SamplesDir), 0o755)
		if err := os.WriteFile(SamplesPath(d, "task"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _, err := ReadTaskSamples(a, "task")
	if err != nil {
		t.Fatal(err)
	}
	if err := RewriteSorted(SamplesPath(a, "task"), want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTaskForSummary(b, "task", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, ReadTaskSamples has %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], slim(want[i])) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, got[i], slim(want[i]))
		}
	}
	wa, _ := os.ReadFile(SamplesPath(a, "task"))
	wb, _ := os.ReadFile(SamplesPath(b, "task"))
	if !bytes.Equal(wa, wb) {
		t.Errorf("sorted file differs from RewriteSorted's:\n%s\n---\n%s", wb, wa)
	}
	// Already in order: left alone (same file, not a renamed copy).
	before, _ := os.Stat(SamplesPath(b, "task"))
	if _, err := ReadTaskForSummary(b, "task", true); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(SamplesPath(b, "task"))
	if !os.SameFile(before, after) {
		t.Error("a file already in order was rewritten")
	}
}

func TestReadTaskForSummaryErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		`{"task":"task","id":"1","scores":{"acc":"high"}}`,
		`{"task":"task","id":5}`,
		`{"task":"task","id":"1","index":1.5}`,
		`{"task":"task","id":"1",}`,
		`[1,2]`,
		`{"task":"task"}`,
		`{"task":"task","id":"ok","scores":{}}`,
		`{"task":"other","id":"2","scores":{}}`,
		`{"task":"task","id":"3","scores":{"acc":1.5}}`,
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, SamplesDir), 0o755)
		os.WriteFile(SamplesPath(dir, "task"), []byte(line(t, full("ok", 0, 0, ""))+bad+"\n"), 0o644)
		_, _, want := ReadTaskSamples(dir, "task")
		_, got := ReadTaskForSummary(dir, "task", false)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: error %v, ReadTaskSamples says %v", bad, got, want)
		}
		if got != nil && !strings.Contains(got.Error(), ":2:") {
			t.Errorf("%s: error %v does not name line 2", bad, got)
		}
	}
}
