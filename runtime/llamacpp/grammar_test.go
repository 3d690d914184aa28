//go:build !nollamacpp

package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

func qwenTemplate(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../chattemplate/testdata/templates/qwen2.5-7b-instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

var grammarTools = json.RawMessage(`[{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "Rome"]}, "days": {"type": "integer"}, "unit": {"type": "string", "maxLength": 8}}, "required": ["city"]}}},
{"type": "function", "function": {"name": "lookup_time", "parameters": {"type": "object", "properties": {}}}}]`)

// TestToolChoiceEnforced: the story model knows nothing of tools, yet
// with tool_choice "required" (and a named function) its answer is a call
// whose arguments follow the schema, at any seed; "auto" stays prose.
func TestToolChoiceEnforced(t *testing.T) {
	rt := open(t, stories, Options{Threads: 1, ChatTemplate: qwenTemplate(t)})
	if !rt.EnforcesToolChoice() {
		t.Fatal("EnforcesToolChoice() = false with a chat template")
	}
	msgs := []runtime.Message{{Role: "user", Content: "Once upon a time"}}
	for _, tt := range []struct {
		choice string
		want   string
	}{
		{`"required"`, ""},
		{`{"type": "function", "function": {"name": "lookup_time"}}`, "lookup_time"},
		{`{"type": "function", "function": {"name": "get_weather"}}`, "get_weather"},
	} {
		for seed := int64(1); seed <= 3; seed++ {
			req := runtime.Request{Messages: msgs, Tools: grammarTools, ToolChoice: json.RawMessage(tt.choice),
				Gen: runtime.GenConfig{Temperature: 1, Seed: seed, MaxTokens: 200}}
			resp, err := rt.Generate(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != 1 || resp.FinishReason != runtime.FinishStop {
				t.Fatalf("tool_choice %s seed %d: %+v, want one call", tt.choice, seed, resp)
			}
			c := resp.ToolCalls[0]
			t.Logf("tool_choice %s seed %d: %s %s", tt.choice, seed, c.Name, c.Arguments)
			if tt.want != "" && c.Name != tt.want {
				t.Errorf("tool_choice %s: called %s", tt.choice, c.Name)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
				t.Fatalf("arguments %q: %v", c.Arguments, err)
			}
			if c.Name == "get_weather" && args["city"] != "Paris" && args["city"] != "Rome" {
				t.Errorf("get_weather arguments %s: city not in the enum", c.Arguments)
			}
			if c.Name == "lookup_time" && len(args) != 0 {
				t.Errorf("lookup_time arguments %s, want {}", c.Arguments)
			}
		}
	}
	resp, err := rt.Generate(context.Background(), runtime.Request{Messages: msgs, Tools: grammarTools, Gen: runtime.GenConfig{MaxTokens: 20}})
	if err != nil || len(resp.ToolCalls) != 0 {
		t.Errorf("tool_choice auto: %+v, %v; want prose", resp, err)
	}
}

// TestToolsNotRenderedRefused: the story model has no chat template, so
// it gets the ChatML fallback, which renders no tools: a request with
// tools fails before generating, and Preflight says so (a run is refused).
func TestToolsNotRenderedRefused(t *testing.T) {
	rt := open(t, stories, Options{Threads: 1})
	req := runtime.Request{Messages: []runtime.Message{{Role: "user", Content: "hi"}}, Tools: grammarTools}
	var tn *chattemplate.ToolsNotRenderedError
	if err := rt.Preflight(req); !errors.As(err, &tn) || tn.Param != "tools" {
		t.Errorf("Preflight: %v, want ToolsNotRenderedError", err)
	}
	if _, err := rt.Generate(context.Background(), req); !errors.As(err, &tn) {
		t.Errorf("Generate: %v, want ToolsNotRenderedError", err)
	}
}
