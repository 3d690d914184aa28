package toolcall

import (
	"reflect"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		f       Family
		text    string
		content string
		calls   []runtime.ToolCall
	}{
		{Hermes, "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>\n<tool_call>{\"name\": \"t\", \"arguments\": {}}",
			"Let me check.\n", []runtime.ToolCall{{Name: "get_weather", Arguments: `{"city":"Paris","days":3}`}, {Name: "t", Arguments: `{}`}}},
		{Hermes, "no call here", "no call here", nil},
		{Hermes, "<tool_call>not json</tool_call>", "<tool_call>not json</tool_call>", nil},
		{Mistral, `[TOOL_CALLS] [{"name": "add", "arguments": {"b": 2, "a": 1}}]`, "", []runtime.ToolCall{{Name: "add", Arguments: `{"b":2,"a":1}`}}},
		{Llama3, `<|python_tag|>{"name": "f", "parameters": {"x": "a;b"}}; {"name": "g", "parameters": {}}`, "", []runtime.ToolCall{{Name: "f", Arguments: `{"x":"a;b"}`}, {Name: "g", Arguments: `{}`}}},
		{Llama3, `The answer is 4.`, `The answer is 4.`, nil},
		{Hermes, `<tool_call>{"name": "s", "arguments": "{\"q\": 1}"}</tool_call>`, "", []runtime.ToolCall{{Name: "s", Arguments: `{"q":1}`}}},
	} {
		content, calls := Parse(c.f, c.text)
		if content != c.content || !reflect.DeepEqual(calls, c.calls) {
			t.Errorf("Parse(%s, %q) = %q, %+v; want %q, %+v", c.f, c.text, content, calls, c.content, c.calls)
		}
	}
	if Detect("{{ '<tool_call>' }}") != Hermes || Detect("[TOOL_CALLS]") != Mistral || Detect("<|python_tag|>") != Llama3 {
		t.Error("Detect")
	}
}
