package chattemplate_test

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime/chat"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

var checkTools = json.RawMessage(`[{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
{"type": "function", "function": {"name": "lookup_time", "description": "Local time.", "parameters": {"type": "object", "properties": {}}}}]`)

var checkConversations = map[string][]chat.Message{
	"offer": {{Role: "user", Content: "Weather in Paris?"}},
	"called": {
		{Role: "user", Content: "Weather in Paris?"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Role: "tool", ToolCallID: "call_1", Name: "get_weather", Content: "sunny"},
		{Role: "assistant", Content: "Sunny."},
		{Role: "user", Content: "And the time?"},
	},
}

// toolsReachPrompt is the property every template must have: a chat with
// tools renders with every function's name in the prompt (and every
// earlier call's), or it is refused — by Chat's *ToolsNotRenderedError,
// the template's own raise_exception or its failure to render — never
// rendered without them.
func toolsReachPrompt(t *testing.T, name string, tmpl *chattemplate.Template, tokens map[string]string) (rendered bool) {
	t.Helper()
	for conv, msgs := range checkConversations {
		o := chattemplate.ChatOptions{AddGenerationPrompt: true, BOS: tokens["bos_token"], EOS: tokens["eos_token"], Now: fixedNow, Tools: checkTools}
		out, err := tmpl.Chat(msgs, o)
		if err != nil {
			// Refused: by the check, by raise_exception, or by the
			// template failing on this conversation as jinja2 does
			// (TestRealTemplates compares those errors).
			continue
		}
		for _, fn := range []string{"get_weather", "lookup_time"} {
			if !strings.Contains(out, fn) {
				t.Errorf("%s %s: rendered without the function %s:\n%s", name, conv, fn, out)
			}
		}
		if conv == "called" && !strings.Contains(out, "Paris") {
			t.Errorf("%s %s: the earlier call's arguments are not in the prompt:\n%s", name, conv, out)
		}
		rendered = true
	}
	return rendered
}

// TestToolsReachPromptCorpus proves the property for every template of
// the conformance corpus and for the ChatML fallback, and pins which of
// them render tools.
func TestToolsReachPromptCorpus(t *testing.T) {
	t.Parallel()
	var metas map[string]templateMeta
	readJSON(t, "testdata/templates.json", &metas)
	got := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(metas)) {
		src, err := os.ReadFile(filepath.Join("testdata", metas[name].File))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := chattemplate.Parse(string(src))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = toolsReachPrompt(t, name, tmpl, metas[name].Tokens)
	}
	fallback, err := chattemplate.Parse(chattemplate.ChatML)
	if err != nil {
		t.Fatal(err)
	}
	if toolsReachPrompt(t, "fallback", fallback, nil) {
		t.Error("the ChatML fallback renders tools; it has no tools branch")
	}
	for _, name := range []string{"qwen2.5-7b-instruct", "qwen3-0.6b", "llama-3.1-8b-instruct"} {
		if !got[name] {
			t.Errorf("%s: refuses tools; its template renders them", name)
		}
	}
	for _, name := range []string{"chatml", "gemma-2-2b-it", "smollm3-3b" /* xml_tools, not tools */} {
		if got[name] {
			t.Errorf("%s: renders tools; its template has no tools branch", name)
		}
	}
	t.Logf("templates rendering tools: %v", got)
}

// TestToolsNotRendered names what is missing.
func TestToolsNotRendered(t *testing.T) {
	t.Parallel()
	tmpl, err := chattemplate.Parse(chattemplate.ChatML)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Chat(checkConversations["offer"], chattemplate.ChatOptions{Tools: checkTools})
	var tn *chattemplate.ToolsNotRenderedError
	if !errors.As(err, &tn) || tn.Param != "tools" || tn.Name != "get_weather" {
		t.Fatalf("tools on ChatML: %v", err)
	}
	_, err = tmpl.Chat(checkConversations["called"], chattemplate.ChatOptions{})
	if !errors.As(err, &tn) || tn.Param != "messages[1].tool_calls" || tn.Name != "get_weather" {
		t.Fatalf("a tool call on ChatML: %v", err)
	}
	if _, err := tmpl.Chat(checkConversations["offer"], chattemplate.ChatOptions{Tools: json.RawMessage(`[]`)}); err != nil {
		t.Fatalf("an empty tools array: %v", err)
	}
}

// TestToolsReachPromptRealTemplates checks the property over llama.cpp's
// collection of real templates, when it is installed.
func TestToolsReachPromptRealTemplates(t *testing.T) {
	if testing.Short() {
		t.Skip("renders about 70 templates")
	}
	dir := os.Getenv("POCKETEVAL_CHAT_TEMPLATES")
	if dir == "" {
		out, err := exec.Command("../../scripts/chat-templates.sh").Output()
		if err != nil {
			t.Skipf("no template collection (scripts/chat-templates.sh: %v)", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jinja"))
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := chattemplate.Parse(string(src))
		if err != nil {
			continue // templates jinja2 refuses too (TestRealTemplates)
		}
		if toolsReachPrompt(t, filepath.Base(f), tmpl, map[string]string{"bos_token": "<|bos|>", "eos_token": "<|eos|>"}) {
			n++
		}
	}
	t.Logf("%d of %d templates render tools", n, len(files))
}
