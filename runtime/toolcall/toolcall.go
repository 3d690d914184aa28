// Package toolcall finds the function calls a model wrote in its text, per
// model family, following vLLM's tool parsers
// (vllm/entrypoints/openai/tool_parsers: hermes_tool_parser.py,
// mistral_tool_parser.py, llama_tool_parser.py):
//
//   - Hermes (Hermes 2/3, Qwen2.5/Qwen3, SmolLM3 and most ChatML tool
//     templates): every <tool_call>{"name": ..., "arguments": {...}}</tool_call>
//     (an unterminated last one too); the content is the text before the
//     first <tool_call>.
//   - Mistral: the JSON array after [TOOL_CALLS] ([{"name", "arguments"}]);
//     the content is the text before it.
//   - Llama 3 JSON (Llama 3.1/3.2/3.3): a text that is, after an optional
//     <|python_tag|>, one or more JSON objects {"name": ..., "parameters"
//     (or "arguments"): {...}} separated by ";"; then there is no content.
//
// A text with no call, or whose calls are not valid JSON of that shape, is
// content only, as the vLLM parsers return it. Arguments are re-encoded as
// compact JSON with their key order kept.
package toolcall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/runtime"
)

// Family names a tool-call format.
type Family string

// The supported families.
const (
	Hermes  Family = "hermes"
	Mistral Family = "mistral"
	Llama3  Family = "llama3_json"
)

// Detect picks the family a chat template writes tool calls in: Mistral
// for [TOOL_CALLS], Llama 3 JSON for <|python_tag|> or Llama 3's
// "parameters" JSON instructions, else Hermes.
func Detect(template string) Family {
	switch {
	case strings.Contains(template, "[TOOL_CALLS]"):
		return Mistral
	case strings.Contains(template, "<tool_call>"):
		return Hermes
	case strings.Contains(template, "<|python_tag|>") || strings.Contains(template, "<|start_header_id|>") && strings.Contains(template, `"parameters"`):
		return Llama3
	}
	return Hermes
}

// ParseFamily parses a family name.
func ParseFamily(s string) (Family, error) {
	switch Family(s) {
	case Hermes, Mistral, Llama3:
		return Family(s), nil
	}
	return "", fmt.Errorf("tool-call format %q: want hermes, mistral or llama3_json", s)
}

var hermesRe = lazyre.New(`(?s)<tool_call>(.*?)</tool_call>|<tool_call>(.*)`)

// Parse returns the content and the calls of a generated text.
func Parse(f Family, text string) (string, []runtime.ToolCall) {
	switch f {
	case Mistral:
		i := strings.Index(text, "[TOOL_CALLS]")
		if i < 0 {
			return text, nil
		}
		calls, ok := jsonCalls(strings.TrimSpace(text[i+len("[TOOL_CALLS]"):]), "arguments")
		if !ok {
			return text, nil
		}
		return text[:i], calls
	case Llama3:
		t := strings.TrimSpace(text)
		t = strings.TrimPrefix(t, "<|python_tag|>")
		if !strings.HasPrefix(strings.TrimSpace(t), "{") {
			return text, nil
		}
		var calls []runtime.ToolCall
		for _, part := range splitTopLevel(t, ';') {
			c, ok := jsonCalls(part, "parameters", "arguments")
			if !ok {
				return text, nil
			}
			calls = append(calls, c...)
		}
		return "", calls
	}
	ms := hermesRe.FindAllStringSubmatchIndex(text, -1)
	if len(ms) == 0 {
		return text, nil
	}
	var calls []runtime.ToolCall
	for _, m := range ms {
		body := ""
		if m[2] >= 0 {
			body = text[m[2]:m[3]]
		} else {
			body = text[m[4]:m[5]]
		}
		c, ok := jsonCalls(strings.TrimSpace(body), "arguments")
		if !ok {
			return text, nil
		}
		calls = append(calls, c...)
	}
	return text[:ms[0][0]], calls
}

// splitTopLevel splits s at sep outside JSON strings and brackets.
func splitTopLevel(s string, sep byte) []string {
	var parts []string
	depth, start := 0, 0
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == sep && depth == 0:
			parts = append(parts, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		parts = append(parts, rest)
	}
	return parts
}

// jsonCalls reads a call object or an array of them; argKeys are the
// names the arguments may have.
func jsonCalls(s string, argKeys ...string) ([]runtime.ToolCall, bool) {
	var raw json.RawMessage
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&raw); err != nil {
		return nil, false
	}
	var objs []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		if err := json.Unmarshal(raw, &objs); err != nil {
			return nil, false
		}
	} else {
		objs = []json.RawMessage{raw}
	}
	var calls []runtime.ToolCall
	for _, o := range objs {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(o, &fields); err != nil {
			return nil, false
		}
		var name string
		if err := json.Unmarshal(fields["name"], &name); err != nil || name == "" {
			return nil, false
		}
		args := json.RawMessage("{}")
		for _, k := range argKeys {
			if a, ok := fields[k]; ok {
				args = a
				break
			}
		}
		// arguments given as a JSON string hold the JSON object
		var str string
		if json.Unmarshal(args, &str) == nil {
			args = json.RawMessage(str)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, args); err != nil {
			return nil, false
		}
		calls = append(calls, runtime.ToolCall{Name: name, Arguments: compact.String()})
	}
	return calls, len(calls) > 0
}

// Apply parses the calls out of resp for a request that offered tools,
// in the format the chat template writes (Detect): resp.Text becomes the
// content outside the calls, resp.ToolCalls the calls, with ids
// "call_0", "call_1", ..., and resp.Raw the whole text they were parsed
// from. A request without tools, or a text without calls of the format
// (malformed ones included), is left alone: its text is all content.
func Apply(template string, req runtime.Request, resp *runtime.Response) {
	if !HasTools(req) {
		return
	}
	content, calls := Parse(Detect(template), resp.Text)
	if len(calls) == 0 {
		return
	}
	for i := range calls {
		calls[i].ID = fmt.Sprintf("call_%d", i)
	}
	resp.Raw, resp.Text, resp.ToolCalls = resp.Text, content, calls
}

// HasTools reports whether a request offers tools (a non-empty array).
func HasTools(req runtime.Request) bool {
	t := bytes.TrimSpace(req.Tools)
	return len(t) > 0 && string(t) != "null" && string(t) != "[]"
}
