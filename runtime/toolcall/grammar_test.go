package toolcall

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestGrammar(t *testing.T) {
	tools := json.RawMessage(`[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y\""]}, "b": {"type": ["integer", "null"]}, "c": {"type": "array", "items": {"type": "boolean"}}, "d": {"anyOf": [{"type": "number"}, {"const": "n/a"}]}}, "required": ["c", "a"]}}},
	{"type": "function", "function": {"name": "g"}}]`)
	check := func(f Family, name string, want ...string) {
		t.Helper()
		g, err := Grammar(f, tools, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(g, w) {
				t.Errorf("%s %q: grammar lacks %q:\n%s", f, name, w, g)
			}
		}
	}
	check(Hermes, "", `root ::= call0 | call1`, `"<tool_call>\n{\"name\": " "\"f\""`, `"}\n</tool_call>"`,
		`call0-args ::= "{" space "\"c\"" space ":" space call0-args-p0 "," space "\"a\"" space ":" space call0-args-p1 ( "," space "\"b\"" space ":" space call0-args-p2 )? ( "," space "\"d\""`,
		`call0-args-p1 ::= "\"x\"" | "\"y\\\"\""`, `call0-args-p0 ::= "[" space ( boolean ( "," space boolean )* )? space "]"`,
		`call0-args-p2 ::= integer | null`, `call0-args-p3-1 ::= "\"n/a\""`, `call1 ::= "<tool_call>\n{\"name\": " "\"g\"" "`)
	check(Hermes, "g", `root ::= call1`+"\n")
	check(Mistral, "", `root ::= "[TOOL_CALLS][" ( call0 | call1 ) "]"`, `", \"arguments\": "`)
	check(Llama3, "f", `root ::= call0`+"\n", `", \"parameters\": "`)
	if _, err := Grammar(Hermes, tools, "h"); err == nil {
		t.Error("a named function not among the tools: no error")
	}
}

func TestChoice(t *testing.T) {
	for raw, want := range map[string]string{``: "auto", `"auto"`: "auto", `"none"`: "none", `"required"`: "required", `{"type": "function", "function": {"name": "f"}}`: "named f"} {
		mode, name := Choice(json.RawMessage(raw))
		if got := strings.TrimSpace(mode + " " + name); got != want {
			t.Errorf("Choice(%s) = %q, want %q", raw, got, want)
		}
	}
}
