package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/runtime"
)

// toolNameRe is what OpenAI accepts as a function name. Names reach the
// prompt verbatim, so anything else (special-token text such as
// "<|im_end|>") is refused, not escaped.
var toolNameRe = lazyre.New(`^[a-zA-Z0-9_-]{1,64}$`)

func checkName(param, name string) *validationError {
	if !toolNameRe.MatchString(name) {
		return invalid(param, "%q is not a valid function name: it must match ^[a-zA-Z0-9_-]{1,64}$", name)
	}
	return nil
}

// Tool choices.
const (
	choiceAuto     = "auto"
	choiceRequired = "required"
	choiceNamed    = "named"
)

// toolRequest is a chat request's validated tools: the OpenAI tools array
// the template gets, the tool_choice passed on, and how the answer is
// written back (legacy: the deprecated functions API, answered with
// function_call).
type toolRequest struct {
	tools  json.RawMessage
	choice json.RawMessage
	mode   string // choiceAuto, choiceRequired, choiceNamed; "" without tools
	named  string
	names  map[string]bool
	legacy bool
}

// wireFunction is a function definition: tools[i].function, or an element
// of the deprecated functions.
type wireFunction struct {
	Name        *string         `json:"name"`
	Description json.RawMessage `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      json.RawMessage `json:"strict"`
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// checkFunction validates one function definition at param.
func checkFunction(param string, raw json.RawMessage, seen map[string]bool) *validationError {
	var f wireFunction
	if bytes.TrimSpace(raw)[0] != '{' || json.Unmarshal(raw, &f) != nil {
		return invalid(param, "must be an object {name, description, parameters}")
	}
	if f.Name == nil {
		return invalid(param+".name", "is required")
	}
	if verr := checkName(param+".name", *f.Name); verr != nil {
		return verr
	}
	if seen[*f.Name] {
		return invalid(param+".name", "duplicate function name %q: each function must have a unique name", *f.Name)
	}
	seen[*f.Name] = true
	if !isNull(f.Description) {
		var s string
		if json.Unmarshal(f.Description, &s) != nil {
			return invalid(param+".description", "must be a string")
		}
	}
	if !isNull(f.Strict) && string(bytes.TrimSpace(f.Strict)) != "true" && string(bytes.TrimSpace(f.Strict)) != "false" {
		return invalid(param+".strict", "must be a boolean")
	}
	if !isNull(f.Parameters) {
		var schema map[string]json.RawMessage
		if bytes.TrimSpace(f.Parameters)[0] != '{' || json.Unmarshal(f.Parameters, &schema) != nil {
			return invalid(param+".parameters", "must be a JSON Schema object, e.g. {\"type\": \"object\", \"properties\": {...}}")
		}
		if t, ok := schema["type"]; ok && string(bytes.TrimSpace(t)) != `"object"` {
			return invalid(param+".parameters", "schema must be a JSON Schema of type \"object\", got type %s", bytes.TrimSpace(t))
		}
		if p, ok := schema["properties"]; ok && !isNull(p) && bytes.TrimSpace(p)[0] != '{' {
			return invalid(param+".parameters.properties", "must be an object")
		}
	}
	return nil
}

// parseToolRequest validates tools and tool_choice, or the deprecated
// functions and function_call (mapped to them). tool_choice "none" offers
// no tools; a tool_choice or function_call without tools is refused, as
// OpenAI refuses it.
func parseToolRequest(tools, choice, functions, functionCall json.RawMessage) (toolRequest, *validationError) {
	var tr toolRequest
	legacy := !isNull(functions) || !isNull(functionCall)
	if legacy && (!isNull(tools) || !isNull(choice)) {
		p := "functions"
		if isNull(functions) {
			p = "function_call"
		}
		return tr, invalid(p, "the deprecated functions/function_call cannot be combined with tools/tool_choice")
	}
	var elems []json.RawMessage
	seen := map[string]bool{}
	switch {
	case legacy:
		tr.legacy = true
		if isNull(functions) {
			return tr, invalid("function_call", "is only allowed when functions are specified")
		}
		var defs []json.RawMessage
		if json.Unmarshal(functions, &defs) != nil || bytes.TrimSpace(functions)[0] != '[' {
			return tr, invalid("functions", "must be an array of {name, description, parameters}")
		}
		if len(defs) == 0 {
			return tr, invalid("functions", "empty array: give at least one function, or leave functions out")
		}
		for i, d := range defs {
			if verr := checkFunction(fmt.Sprintf("functions[%d]", i), d, seen); verr != nil {
				return tr, verr
			}
			elems = append(elems, json.RawMessage(`{"type": "function", "function": `+string(bytes.TrimSpace(d))+`}`))
		}
		choice = legacyChoice(functionCall)
		if choice == nil {
			return tr, invalid("function_call", "must be \"none\", \"auto\" or {name}")
		}
	case isNull(tools):
		if !isNull(choice) {
			return tr, invalid("tool_choice", "is only allowed when tools are specified")
		}
		return tr, nil
	default:
		if bytes.TrimSpace(tools)[0] != '[' || json.Unmarshal(tools, &elems) != nil {
			return tr, invalid("tools", "must be an array of {type: \"function\", function: {name, description, parameters}}")
		}
		if len(elems) == 0 {
			if !isNull(choice) {
				return tr, invalid("tool_choice", "is only allowed when tools are specified (tools is empty)")
			}
			return tr, nil
		}
		for i, e := range elems {
			var t struct {
				Type     *string         `json:"type"`
				Function json.RawMessage `json:"function"`
			}
			if bytes.TrimSpace(e)[0] != '{' || json.Unmarshal(e, &t) != nil {
				return tr, invalid(fmt.Sprintf("tools[%d]", i), "must be {type: \"function\", function: {name, ...}}")
			}
			if t.Type == nil || *t.Type != "function" {
				return tr, invalid(fmt.Sprintf("tools[%d].type", i), "must be \"function\"")
			}
			if isNull(t.Function) {
				return tr, invalid(fmt.Sprintf("tools[%d].function", i), "is required")
			}
			if verr := checkFunction(fmt.Sprintf("tools[%d].function", i), t.Function, seen); verr != nil {
				return tr, verr
			}
		}
	}
	tr.names = seen
	c := bytes.TrimSpace(choice)
	switch string(c) {
	case "", "null", `"auto"`:
		tr.mode = choiceAuto
	case `"required"`:
		tr.mode = choiceRequired
	case `"none"`:
		tr.names = nil
		return tr, nil
	default:
		param := "tool_choice"
		if tr.legacy {
			param = "function_call"
		}
		var named struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(c, &named) != nil || named.Type != "function" || named.Function.Name == "" {
			return tr, invalid(param, "must be \"none\", \"auto\", \"required\" or {type: \"function\", function: {name}}")
		}
		if !seen[named.Function.Name] {
			return tr, invalid(param, "function %q is not among the tools", named.Function.Name)
		}
		tr.mode, tr.named = choiceNamed, named.Function.Name
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(bytes.TrimSpace(e))
	}
	b.WriteByte(']')
	tr.tools, tr.choice = b.Bytes(), c
	if len(c) == 0 || string(c) == "null" {
		tr.choice = nil
	}
	return tr, nil
}

// legacyChoice maps function_call to a tool_choice; nil when invalid.
func legacyChoice(fc json.RawMessage) json.RawMessage {
	fc = bytes.TrimSpace(fc)
	switch string(fc) {
	case "", "null", `"auto"`:
		return json.RawMessage(`"auto"`)
	case `"none"`:
		return json.RawMessage(`"none"`)
	}
	var named struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(fc, &named) != nil || named.Name == "" {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": named.Name}})
	return b
}

// checkToolMessages requires every tool message to answer a call an
// earlier assistant turn made (by tool_call_id), and every name in the
// conversation's calls to be a valid function name.
func checkToolMessages(msgs []runtime.Message) *validationError {
	calls := map[string]bool{}
	for i, m := range msgs {
		for j, c := range m.ToolCalls {
			if verr := checkName(fmt.Sprintf("messages[%d].tool_calls[%d].function.name", i, j), c.Name); verr != nil {
				return verr
			}
			calls[c.ID] = true
		}
		if m.Role != "tool" {
			continue
		}
		if m.Name != "" {
			if verr := checkName(fmt.Sprintf("messages[%d].name", i), m.Name); verr != nil {
				return verr
			}
		}
		if m.ToolCallID == "" {
			return invalid(fmt.Sprintf("messages[%d].tool_call_id", i), "is required for a tool message")
		}
		if !calls[m.ToolCallID] {
			return invalid(fmt.Sprintf("messages[%d].tool_call_id", i), "%q answers no tool call of an earlier assistant message", m.ToolCallID)
		}
	}
	return nil
}

// legacyMessage maps a message of the deprecated functions API: an
// assistant's function_call becomes a tool call (id "call_legacy_<i>"),
// a "function" message the tool message answering the latest call of
// that name.
func legacyMessage(i int, m *chatMessage, out *runtime.Message, prev []runtime.Message) *validationError {
	if !isNull(m.FunctionCall) {
		if m.Role != "assistant" {
			return invalid(fmt.Sprintf("messages[%d].function_call", i), "only assistant messages make function calls")
		}
		if len(out.ToolCalls) > 0 {
			return invalid(fmt.Sprintf("messages[%d].function_call", i), "cannot be combined with tool_calls")
		}
		var fc struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(m.FunctionCall, &fc) != nil || fc.Name == "" {
			return invalid(fmt.Sprintf("messages[%d].function_call", i), "must be {name, arguments}")
		}
		out.ToolCalls = []runtime.ToolCall{{ID: fmt.Sprintf("call_legacy_%d", i), Name: fc.Name, Arguments: argumentsText(fc.Arguments)}}
	}
	if m.Role == "function" {
		if m.Name == "" {
			return invalid(fmt.Sprintf("messages[%d].name", i), "is required for a function message")
		}
		out.Role = "tool"
		for k := len(prev) - 1; k >= 0; k-- {
			for _, c := range prev[k].ToolCalls {
				if c.Name == m.Name {
					out.ToolCallID = c.ID
				}
			}
			if out.ToolCallID != "" {
				break
			}
		}
		if out.ToolCallID == "" {
			return invalid(fmt.Sprintf("messages[%d].name", i), "function %q answers no function_call of an earlier assistant message", m.Name)
		}
	}
	return nil
}

// argumentsText is a call's arguments as JSON text: OpenAI sends a string
// holding JSON; an object is taken as it is.
func argumentsText(raw json.RawMessage) string {
	args := string(bytes.TrimSpace(raw))
	var str string
	if json.Unmarshal(raw, &str) == nil {
		args = str
	}
	if args == "" || args == "null" {
		args = "{}"
	}
	return args
}

// wireCalls writes tool calls in OpenAI's shape.
func wireCalls(calls []runtime.ToolCall) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		out[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
	}
	return out
}

// argumentFragments splits a call's arguments into the pieces a stream
// sends, as OpenAI streams them (a few characters at a time), cut at
// character boundaries.
func argumentFragments(s string) []string {
	const size = 16
	var out []string
	for len(s) > 0 {
		n := min(size, len(s))
		for n < len(s) && !utf8Start(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// ToolChoiceEnforcer is implemented by runtimes that can make the model
// call a function — tool_choice "required" or a named function — by
// constraining decoding (llama.cpp in process, with a grammar) or by
// passing tool_choice to a server that does (the openai runtime).
// EnforcesToolChoice says whether it will; without it such requests are
// refused with 400 rather than run as "auto".
type ToolChoiceEnforcer interface {
	EnforcesToolChoice() bool
}

func enforcesToolChoice(rt runtime.Runtime) bool {
	e, ok := rt.(ToolChoiceEnforcer)
	return ok && e.EnforcesToolChoice()
}

// errChoiceIgnored is an answer that ignored a forced tool_choice: a
// runtime that said it enforces it (an upstream server behind the openai
// runtime that does not) answered without the call.
var errChoiceIgnored = errors.New("the runtime did not honour tool_choice")

// honoured checks that an answer finished normally obeys a forced
// tool_choice: at least one call, and only of the named function. An
// answer cut by max_tokens is returned as it is (finish_reason "length").
func (tr toolRequest) honoured(resp runtime.Response) error {
	if tr.mode != choiceRequired && tr.mode != choiceNamed || resp.FinishReason == runtime.FinishLength {
		return nil
	}
	if len(resp.ToolCalls) == 0 {
		return fmt.Errorf("%w: tool_choice %s, but the answer calls no function", errChoiceIgnored, tr.mode)
	}
	for _, c := range resp.ToolCalls {
		if tr.mode == choiceNamed && c.Name != tr.named {
			return fmt.Errorf("%w: tool_choice names %q, but the answer calls %q", errChoiceIgnored, tr.named, c.Name)
		}
	}
	return nil
}
