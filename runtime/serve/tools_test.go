package serve_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/serve"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// toolModel renders requests with Qwen2.5's template (tools included) and
// answers the first turn with a Hermes tool call, the second with text.
type toolModel struct {
	tmpl     *chattemplate.Template
	rendered []string
}

func (m *toolModel) Generate(_ context.Context, req runtime.Request) (runtime.Response, error) {
	text, err := m.tmpl.Chat(req.Messages, chattemplate.ChatOptions{AddGenerationPrompt: true, Tools: req.Tools})
	if err != nil {
		return runtime.Response{}, err
	}
	m.rendered = append(m.rendered, text)
	resp := runtime.Response{Text: "It is sunny.", FinishReason: runtime.FinishStop}
	if req.Messages[len(req.Messages)-1].Role == "user" {
		resp.Text = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"scale\": 1.0}}\n</tool_call>"
	}
	toolcall.Apply(m.tmpl.Source(), req, &resp)
	return resp, nil
}

func (m *toolModel) Describe() runtime.Info { return runtime.Info{Model: "tool-model"} }

func (m *toolModel) Close() error { return nil }

// TestToolsRoundTrip: the openai runtime sends tools to serve, serve renders
// them through the model's template and returns the parsed call as
// OpenAI tool_calls; the call and its result go back as messages.
func TestToolsRoundTrip(t *testing.T) {
	src, err := os.ReadFile("../chattemplate/testdata/templates/qwen2.5-7b-instruct.jinja")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := chattemplate.Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	m := &toolModel{tmpl: tmpl}
	srv := httptest.NewServer(serve.New(m, serve.Options{}))
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools := json.RawMessage(`[{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]`)
	msgs := []runtime.Message{{Role: "user", Content: "Weather in Paris?"}}
	resp, err := c.Generate(context.Background(), runtime.Request{Messages: msgs, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	want := runtime.ToolCall{Name: "get_weather", Arguments: `{"city":"Paris","scale":1.0}`}
	if len(resp.ToolCalls) != 1 || !strings.HasPrefix(resp.ToolCalls[0].ID, "call_") || resp.ToolCalls[0].ID == "call_0" || resp.Text != "" {
		t.Fatalf("response %+v, want the call %+v with a server-unique id", resp, want)
	}
	want.ID = resp.ToolCalls[0].ID
	if resp.ToolCalls[0] != want {
		t.Fatalf("response %+v, want the call %+v", resp, want)
	}
	if !strings.Contains(m.rendered[0], `{"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}`) {
		t.Errorf("tools not rendered by the template:\n%s", m.rendered[0])
	}
	msgs = append(msgs, runtime.Message{Role: "assistant", ToolCalls: resp.ToolCalls}, runtime.Message{Role: "tool", ToolCallID: want.ID, Name: "get_weather", Content: "sunny"})
	resp, err = c.Generate(context.Background(), runtime.Request{Messages: msgs, Tools: tools})
	if err != nil || resp.Text != "It is sunny." || len(resp.ToolCalls) != 0 {
		t.Fatalf("second turn: %+v, %v", resp, err)
	}
	if !strings.Contains(m.rendered[1], "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"scale\": 1.0}}\n</tool_call>") ||
		!strings.Contains(m.rendered[1], "<tool_response>\nsunny\n</tool_response>") {
		t.Errorf("the call and its result are not rendered:\n%s", m.rendered[1])
	}
}
