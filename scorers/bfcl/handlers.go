package bfcl

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// A Handler is one of BFCL's model handlers: its decode_ast, which turns
// a model's recorded result into calls, at each release. BFCL decodes a
// model's results with the handler its model registry names for it
// (v2: model_handler/handler_map.py at 4a64db34; v4:
// bfcl_eval/constants/model_config.py at 6ea57973).
type Handler struct {
	// Name is the --bfcl-handler name.
	Name string
	// V2 and V4 name BFCL's handler classes of each release ("" when the
	// release has none).
	V2, V4 string
	// Format says what the handler decodes.
	Format string
	// decode is decode_ast; fc reports a function-calling task (the
	// handlers of v2 that serve both modes look for "FC" in the model
	// name). result is a string, or a list of {name: JSON arguments}.
	decode func(v Version, fc bool, result any) ([]any, error)
	// calls: the handler reads recorded calls (a list), not text.
	calls bool
	// dotsV2, dotsV4: BFCL compares the function names of this handler's
	// models with "." written "_" (v2: the models in
	// model_handler/constant.py's UNDERSCORE_TO_DOT; v4: model_config's
	// underscore_to_dot).
	dotsV2, dotsV4 bool
}

// UnderscoreToDot reports whether BFCL release v compares the function
// names of this handler's models with "." written "_".
func (h *Handler) UnderscoreToDot(v Version) bool {
	if v == V2 {
		return h.dotsV2
	}
	return h.dotsV4
}

// ReadsCalls reports whether the handler decodes a list of calls (FC
// results) rather than text.
func (h *Handler) ReadsCalls() bool { return h.calls }

// Decode is the handler's decode_ast at release v.
func (h *Handler) Decode(v Version, fc bool, result any) ([]any, error) {
	return h.decode(v, fc, result)
}

// Has reports whether release v has the handler.
func (h *Handler) Has(v Version) bool {
	if v == V2 {
		return h.V2 != ""
	}
	return h.V4 != ""
}

// notList is a decoded output that is not a list (xLAM's handler returns
// the text it cannot read, Nexus's "irrelevant"): never calls, and empty
// for the relevance rule (is_function_calling_format_output is False).
type notList struct{ v any }

// defaultDecode is what the tasks do without a handler: v2's OpenAI
// handler (gpt_handler.py: ast_parse of the text; json.loads of each FC
// argument string) and v4's default_decode_ast_prompting (base_oss_handler
// and the prompting API handlers) or the FC handlers' json.loads.
func defaultDecode(v Version, fc bool, result any) ([]any, error) {
	if fc {
		return DecodeFC(result)
	}
	return DecodePrompt(v, result)
}

func text(result any) (string, error) {
	s, ok := result.(string)
	if !ok {
		return "", fmt.Errorf("'%s' object has no attribute 'split'", pyType(result))
	}
	return s, nil
}

// astParseV2 is v2's ast_parse (model_handler/utils.py:230): the text as
// given, every element a call resolved by resolve_ast_by_type.
func astParseV2(s string) ([]any, error) { return DecodePrompt(V2, s) }

// astParseV4 is v4's ast_parse (bfcl_eval/model_handler/utils.py:248)
// without default_decode_ast_prompting's trimming and brackets.
func astParseV4(s string) ([]any, error) {
	s = strings.Trim(strings.TrimFunc(s, isPySpace), "'")
	bud := &budget{}
	body, err := parseBounded(s)
	if err != nil {
		return nil, err
	}
	if c, ok := body.(*pCall); ok {
		d, err := resolveCall(bud, c)
		if err != nil {
			return nil, err
		}
		return []any{d}, bud.err()
	}
	elts, err := elements(body)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(elts))
	for _, e := range elts {
		c, ok := e.(*pCall)
		if !ok {
			return nil, errors.New("")
		}
		d, err := resolveCall(bud, c)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, bud.err()
}

// bracket adds a missing "[" and "]" (every handler's rule).
func bracket(s, open, close string) string {
	if !strings.HasPrefix(s, "[") {
		s = open + s
	}
	if !strings.HasSuffix(s, "]") {
		s += close
	}
	return s
}

// item is Python's d[k] on a decoded JSON value.
func item(v any, k string) (any, error) {
	d, ok := v.(*Dict)
	if !ok {
		switch v.(type) {
		case []any:
			return nil, errors.New("list indices must be integers or slices, not str")
		case string:
			return nil, errors.New("string indices must be integers, not 'str'")
		}
		return nil, fmt.Errorf("'%s' object is not subscriptable", pyType(v))
	}
	x, ok := d.Get(k)
	if !ok {
		return nil, fmt.Errorf("KeyError: %s", repr(k))
	}
	return x, nil
}

// nameArgs turns {"name": n, argsKey: a} objects into [{n: a}].
func nameArgs(calls []any, argsKey string) ([]any, error) {
	out := make([]any, 0, len(calls))
	for _, c := range calls {
		name, err := item(c, "name")
		if err != nil {
			return nil, err
		}
		args, err := item(c, argsKey)
		if err != nil {
			return nil, err
		}
		if !hashable(name) {
			return nil, fmt.Errorf("unhashable type: '%s'", pyType(name))
		}
		d := &Dict{}
		d.Set(name, args)
		out = append(out, d)
	}
	return out, nil
}

// listOf is [x] unless x is a list.
func listOf(x any) []any {
	if l, ok := x.([]any); ok {
		return l
	}
	return []any{x}
}

// fcList is the FC handlers' json.loads of each {name: arguments}.
func fcList(result any) ([]any, error) { return DecodeFC(result) }

// decodedList is the v4 FC handlers whose inference already decoded the
// calls (mistral_fc, phi_fc, granite_3, arch: "The input is already a list
// of dictionaries"): the recorded list, with each argument object as
// stored (replay gives it as JSON text).
func decodedList(result any) ([]any, error) {
	l, ok := result.([]any)
	if !ok {
		return nil, fmt.Errorf("Model did not return a list of function calls: %s", capText(repr(result), 200))
	}
	out := make([]any, len(l))
	for i, it := range l {
		d, ok := it.(*Dict)
		if !ok {
			return nil, fmt.Errorf("Model did not return a list of function calls: %s", capText(repr(result), 200))
		}
		c := &Dict{}
		for j, k := range d.Keys() {
			v := d.Values()[j]
			if s, ok := v.(string); ok {
				if p, err := ParseJSON([]byte(s)); err == nil {
					v = p
				}
			}
			c.Set(k, v)
		}
		out[i] = c
	}
	return out, nil
}

var (
	qwenToolCallRe = lazyre.New(`(?s)<tool_call>\n(.*?)\n</tool_call>`)
	gemmaV2Re      = lazyre.New(`(?s)\[(.*)\]`)
	deepseekListRe = lazyre.New(`\[[^\]]*\]`)
	quotedRe       = lazyre.New(`'([^']*)'`)
)

var handlers = []*Handler{
	{Name: "default", calls: true, V2: "OpenAIHandler", V4: "OSSHandler",
		Format: "prompt mode: [f(a=1)] (v2 as given; v4 default_decode_ast_prompting: backticks, newlines and spaces stripped, brackets added); FC: {name: JSON arguments}",
		decode: defaultDecode},
	{Name: "oss", V2: "OSSHandler", V4: "OSSHandler",
		Format: "[f(a=1)]: v2 drops one leading space and adds missing brackets (oss_handler.py); v4 as default",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			if v == V4 {
				return DecodePrompt(V4, result)
			}
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			if s == "" {
				return nil, errors.New("string index out of range")
			}
			s = strings.TrimPrefix(s, " ")
			return astParseV2(bracket(s, "[", "]"))
		}},
	{Name: "gorilla", V2: "GorillaHandler",
		Format: "f(a=1), f(b=2): wrapped in brackets (gorilla_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			return astParseV2("[" + s + "]")
		}},
	{Name: "hermes", dotsV2: true, V2: "HermesHandler", V4: "QwenFCHandler",
		Format: "<tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>: v2 reads the JSON line after a line \"<tool_call>\" (quotes ' made \"); v4 (Qwen FC) every <tool_call>\\n...\\n</tool_call> whose JSON reads",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			if v == V4 {
				return qwenFC(s)
			}
			flag := false
			var calls []any
			for _, line := range strings.Split(s, "\n") {
				switch {
				case line == "<tool_call>":
					flag = true
				case line == "</tool_call>":
					flag = false
				default:
					if flag {
						x, err := ParseJSON([]byte(strings.ReplaceAll(line, "'", `"`)))
						if err != nil {
							return nil, err
						}
						c, err := nameArgs([]any{x}, "arguments")
						if err != nil {
							return nil, err
						}
						calls = append(calls, c...)
					}
					flag = false
				}
			}
			return calls, nil
		}},
	{Name: "qwen", V2: "", V4: "QwenHandler",
		Format: "Qwen in prompt mode: as default (base_oss_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) { return DecodePrompt(V4, result) }},
	{Name: "qwen_fc", V4: "QwenFCHandler",
		Format: "the same as hermes at v4 (qwen_fc.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			return qwenFC(s)
		}},
	{Name: "xlam", V2: "xLAMHandler", V4: "SalesforceQwenHandler",
		Format: "{\"tool_calls\": [{\"name\", \"arguments\"}]} or a JSON list (v2 xlam_handler.py); v4 a JSON list or object, else \";\"-separated objects (salesforce_qwen.py, salesforce_llama.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			if v == V2 {
				data, err := ParseJSON([]byte(s))
				if err != nil {
					return []any{notList{s}}, nil
				}
				calls, ok := data.([]any)
				if !ok {
					d, isDict := data.(*Dict)
					if !isDict {
						return nil, fmt.Errorf("'%s' object has no attribute 'get'", pyType(data))
					}
					tc, ok := d.Get("tool_calls")
					if !ok {
						tc = []any{}
					}
					if calls, ok = tc.([]any); !ok {
						return nil, fmt.Errorf("'%s' object is not iterable", pyType(tc))
					}
				}
				out := []any{}
				for _, c := range calls {
					d, ok := c.(*Dict)
					if !ok {
						continue
					}
					name, ok := d.Get("name")
					if !ok {
						name = ""
					}
					args, ok := d.Get("arguments")
					if !ok {
						args = &Dict{}
					}
					if !hashable(name) {
						return nil, fmt.Errorf("unhashable type: '%s'", pyType(name))
					}
					x := &Dict{}
					x.Set(name, args)
					out = append(out, x)
				}
				return out, nil
			}
			return jsonOrSemicolons(s, "arguments")
		}},
	{Name: "bitagent", V4: "BitAgentHandler",
		Format: "a JSON list or object of {\"name\", \"arguments\"} (bitagent.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			x, err := ParseJSON([]byte(s))
			if err != nil {
				return nil, err
			}
			return nameArgs(listOf(x), "arguments")
		}},
	{Name: "hammer", V4: "HammerHandler",
		Format: "a JSON list of {\"name\", \"arguments\"}, ``` removed; unreadable JSON is no call (hammer.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			x, err := ParseJSON([]byte(strings.ReplaceAll(s, "```", "")))
			if err != nil {
				x = []any{}
			}
			items, err := iterate(x)
			if err != nil {
				return nil, err
			}
			return nameArgs(items, "arguments")
		}},
	{Name: "glm", dotsV2: true, dotsV4: true, V2: "GLMHandler", V4: "GLMHandler",
		Format: "the function name on the first line, its JSON arguments on the second (glm_handler.py, glm.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			lines := strings.Split(s, "\n")
			if len(lines) == 1 {
				return []any{lines[0]}, nil
			}
			args, err := ParseJSON([]byte(lines[1]))
			if err != nil {
				return nil, err
			}
			d := &Dict{}
			d.Set(lines[0], args)
			return []any{d}, nil
		}},
	{Name: "gemma", V2: "GemmaHandler", V4: "GemmaHandler",
		Format: "v2: the text from the first \"[\" to the last \"]\" (gemma_handler.py); v4 as default (gemma.py has no decoder of its own)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			if v == V4 {
				return DecodePrompt(V4, result)
			}
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			m := gemmaV2Re.FindStringSubmatch(s)
			if m == nil {
				return nil, errors.New("'NoneType' object has no attribute 'group'")
			}
			return astParseV2("[" + m[1] + "]")
		}},
	{Name: "llama", V2: "LlamaHandler", V4: "LlamaHandler",
		Format: "v2: newlines removed, brackets added (llama_handler.py); v4 as default (llama.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			if v == V4 {
				return DecodePrompt(V4, result)
			}
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			return astParseV2(bracket(strings.ReplaceAll(s, "\n", ""), "[", "]"))
		}},
	{Name: "llama_3_1", V4: "LlamaHandler_3_1",
		Format: "<|python_tag|> removed; \";\"-separated JSON objects, else the text evaluated as a Python literal; {\"name\", \"parameters\"} (llama_3_1.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			s = strings.ReplaceAll(s, "<|python_tag|>", "")
			var calls []any
			if strings.Contains(s, ";") {
				for _, part := range strings.Split(s, ";") {
					x, err := ParseJSON([]byte(part))
					if err != nil {
						return nil, err
					}
					calls = append(calls, x)
				}
			} else {
				x, err := evalLiteral(s)
				if err != nil {
					return nil, err
				}
				if d, ok := x.(*Dict); ok {
					x = []any{d}
				}
				if calls, err = iterate(x); err != nil {
					return nil, err
				}
			}
			return nameArgs(calls, "parameters")
		}},
	{Name: "mistral", calls: true, V2: "MistralHandler", V4: "MistralHandler",
		Format: "prompt mode: v2 \"\\_\" made \"_\" and brackets added (mistral_handler.py), v4 as default; FC: {name: JSON arguments}",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			if fc || v == V4 {
				return defaultDecode(v, fc, result)
			}
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			return astParseV2(bracket(strings.ReplaceAll(s, `\_`, "_"), "[", "]"))
		}},
	{Name: "mistral_fc", calls: true, V4: "MistralFCHandler",
		Format: "the calls as decoded at inference: a list of {name: arguments} (mistral_fc.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) { return decodedList(result) }},
	{Name: "functionary", calls: true, V2: "FunctionaryHandler", V4: "FunctionaryHandler",
		Format: "OpenAI-compatible: {name: JSON arguments} (FC), else as default (functionary_handler.py, functionary.py)",
		decode: defaultDecode},
	{Name: "phi", V4: "PhiHandler",
		Format: "a leading ```json or ```python removed, then as default (phi.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			s = strings.TrimFunc(s, isPySpace)
			s = strings.TrimPrefix(s, "```json")
			s = strings.TrimPrefix(s, "```python")
			return DecodePrompt(V4, s)
		}},
	{Name: "phi_fc", calls: true, V4: "PhiFCHandler",
		Format: "the calls as decoded at inference (phi_fc.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) { return decodedList(result) }},
	{Name: "granite", dotsV2: true, dotsV4: true, V2: "GraniteHandler", V4: "GraniteFunctionCallingHandler",
		Format: "<function_call>{\"name\", \"arguments\"} blocks; a block that is not JSON is kept as text, no_function is no call (granite_handler.py, granite.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			var out []any
			for _, part := range strings.Split(s, "<function_call>") {
				part = strings.TrimFunc(part, isPySpace)
				if part == "" {
					continue
				}
				x, err := ParseJSON([]byte(part))
				if err != nil {
					out = append(out, part)
					continue
				}
				d, ok := x.(*Dict)
				if !ok {
					return nil, fmt.Errorf("'%s' object has no attribute 'get'", pyType(x))
				}
				name, ok := d.Get("name")
				if !ok {
					name = ""
				}
				ns, ok := name.(string)
				if !ok {
					return nil, fmt.Errorf("'%s' object has no attribute 'strip'", pyType(name))
				}
				ns = strings.TrimFunc(ns, isPySpace)
				args, ok := d.Get("arguments")
				if !ok {
					args = &Dict{}
				}
				if ns == "no_function" {
					out = append(out, "No function is called")
					continue
				}
				c := &Dict{}
				c.Set(ns, args)
				out = append(out, c)
			}
			if out == nil {
				out = []any{}
			}
			return out, nil
		}},
	{Name: "granite_3", calls: true, V4: "Granite3FCHandler",
		Format: "the calls as decoded at inference (granite_3.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) { return decodedList(result) }},
	{Name: "arch", calls: true, V4: "ArchHandler",
		Format: "the calls as decoded at inference (arch.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) { return decodedList(result) }},
	{Name: "falcon_fc", V4: "Falcon3FCHandler",
		Format: "the JSON (object or list, optionally ```json fenced) inside the first <tool_call>...</tool_call> (falcon_fc.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			_, after, ok := strings.Cut(s, "<tool_call>")
			if !ok {
				return nil, fmt.Errorf("No <tool_call> found in the model's response: %s", capText(s, 200))
			}
			body, _, _ := strings.Cut(after, "</tool_call>")
			body = strings.TrimFunc(body, isPySpace)
			if strings.HasPrefix(body, "```") && strings.HasSuffix(body, "```") {
				body = strings.TrimFunc(strings.Trim(body, "`"), isPySpace)
				if strings.HasPrefix(body, "json") {
					body = strings.TrimFunc(body[4:], isPySpace)
				}
			}
			x, err := ParseJSON([]byte(body))
			if err != nil {
				return nil, fmt.Errorf("Failed to decode the model's response: %s", capText(s, 200))
			}
			calls, err := nameArgs(listOf(x), "arguments")
			if err != nil {
				return nil, fmt.Errorf("Failed to decode the model's response: %s", capText(s, 200))
			}
			return calls, nil
		}},
	{Name: "deepseek", V2: "DeepseekHandler",
		Format: "the first [...] inside the first ``` fence (deepseek_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			parts := strings.Split(s, "```")
			if len(parts) < 2 {
				return nil, errors.New("list index out of range")
			}
			m := deepseekListRe.FindString(parts[1])
			if m == "" {
				return nil, errors.New("list index out of range")
			}
			return astParseV2(m)
		}},
	{Name: "nexus", V2: "NexusHandler",
		Format: "f(a=1); g(b=2): \";\" made \",\", wrapped in brackets; out_of_domain is no call (nexus_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			s = strings.TrimSuffix(s, ";")
			s = strings.ReplaceAll(s, ";", ",")
			out, err := astParseV2("[" + s + "]")
			if err != nil {
				return nil, err
			}
			if strings.Contains(s, "out_of_domain") {
				return []any{notList{"irrelevant"}}, nil
			}
			return out, nil
		}},
	{Name: "arctic", V2: "ArcticHandler",
		Format: "newlines removed, \"[ \" and \" ]\" added, quoted calls unquoted (arctic_handler.py, nvidia_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			s = bracket(strings.ReplaceAll(s, "\n", ""), "[ ", " ]")
			if strings.HasPrefix(s, "['") {
				s = strings.ReplaceAll(s, "['", "[")
				s = strings.ReplaceAll(s, "', '", ", ")
				s = strings.ReplaceAll(s, "','", ", ")
			}
			if strings.HasSuffix(s, "']") {
				s = strings.ReplaceAll(s, "']", "]")
			}
			return astParseV2(s)
		}},
	{Name: "glaive", V2: "GlaiveHandler",
		Format: "the JSON after the last <functioncall> (quotes ' removed) (glaive_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			parts := strings.Split(s, "<functioncall>")
			x, err := ParseJSON([]byte(strings.ReplaceAll(parts[len(parts)-1], "'", "")))
			if err != nil {
				return nil, err
			}
			return nameArgs([]any{x}, "arguments")
		}},
	{Name: "databricks", V2: "DatabricksHandler",
		Format: "quoted spans unquoted, \"\\n    \" removed, brackets added; else the text as given (databricks_handler.py)",
		decode: func(v Version, fc bool, result any) ([]any, error) {
			s, err := text(result)
			if err != nil {
				return nil, err
			}
			f := quotedRe.ReplaceAllString(s, "$1")
			f = strings.ReplaceAll(f, "\n    ", "")
			f = bracket(f, "[", "]")
			if strings.HasPrefix(f, "['") {
				f = strings.ReplaceAll(f, "['", "[")
			}
			if out, err := astParseV2(f); err == nil || tooLarge(err) {
				return out, err
			}
			return astParseV2(s)
		}},
}

func init() {
	// nvidia's decoder is arctic's, line for line
	a := *handlerByName("arctic")
	a.Name, a.V2 = "nvidia", "NvidiaHandler"
	handlers = append(handlers, &a)
	sort.Slice(handlers, func(i, j int) bool { return handlers[i].Name < handlers[j].Name })
}

func handlerByName(name string) *Handler {
	for _, h := range handlers {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// Handlers lists every handler, by name.
func Handlers() []*Handler { return handlers }

// LookupHandler finds a handler by name.
func LookupHandler(name string) (*Handler, error) {
	if h := handlerByName(name); h != nil {
		return h, nil
	}
	names := make([]string, len(handlers))
	for i, h := range handlers {
		names[i] = h.Name
	}
	return nil, fmt.Errorf("unknown BFCL handler %q: want one of %s", name, strings.Join(names, ", "))
}

// qwenFC is qwen_fc.py's decode_ast (6ea57973): every
// <tool_call>\n...\n</tool_call> whose JSON reads, each {name: arguments}
// with arguments a dict.
func qwenFC(s string) ([]any, error) {
	var calls []any
	for _, m := range qwenToolCallRe.FindAllStringSubmatch(s, -1) {
		if x, err := ParseJSON([]byte(m[1])); err == nil {
			calls = append(calls, x)
		}
	}
	out := make([]any, 0, len(calls))
	for _, c := range calls {
		if _, ok := c.(*Dict); !ok {
			return nil, fmt.Errorf("Model did not return a list of function calls: %s", capText(s, 200))
		}
	}
	for _, c := range calls {
		name, err := item(c, "name")
		if err != nil {
			return nil, err
		}
		args, err := item(c, "arguments")
		if err != nil {
			return nil, err
		}
		ad, ok := args.(*Dict)
		if !ok {
			return nil, fmt.Errorf("'%s' object has no attribute 'items'", pyType(args))
		}
		if !hashable(name) {
			return nil, fmt.Errorf("unhashable type: '%s'", pyType(name))
		}
		d := &Dict{}
		d.Set(name, ad.Copy())
		out = append(out, d)
	}
	return out, nil
}

// jsonOrSemicolons is salesforce_qwen.py's and salesforce_llama.py's
// reading: json.loads of the text (a non-list made a list), else of each
// ";"-separated part.
func jsonOrSemicolons(s, argsKey string) ([]any, error) {
	var calls []any
	if x, err := ParseJSON([]byte(s)); err == nil {
		calls = listOf(x)
	} else {
		for _, part := range strings.Split(s, ";") {
			x, err := ParseJSON([]byte(strings.TrimFunc(part, isPySpace)))
			if err != nil {
				return nil, err
			}
			calls = append(calls, x)
		}
	}
	return nameArgs(calls, argsKey)
}

// iterate is Python's iteration over a decoded value: a list's items, a
// dict's keys, a string's characters.
func iterate(x any) ([]any, error) {
	switch v := x.(type) {
	case []any:
		return v, nil
	case Tuple:
		return v, nil
	case *Dict:
		return v.Keys(), nil
	case string:
		var out []any
		for _, r := range v {
			out = append(out, string(r))
		}
		return out, nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", pyType(x))
}

// evalLiteral is Python's eval of a literal display (llama_3_1.py evals
// the model's text): constants, lists, tuples, dicts and arithmetic;
// names (true, null, ...) are a NameError.
func evalLiteral(s string) (any, error) {
	n, err := parseBounded(strings.TrimFunc(s, isPySpace))
	if err != nil {
		return nil, err
	}
	bud := &budget{}
	v, err := literal(bud, n)
	if err != nil {
		return nil, err
	}
	return v, bud.err()
}

func literal(bud *budget, n pnode) (any, error) {
	switch x := n.(type) {
	case *pDict:
		d := &Dict{}
		for i, k := range x.keys {
			if k == nil {
				return nil, errUnsupported
			}
			kv, err := literal(bud, k)
			if err != nil {
				return nil, err
			}
			if !hashable(kv) {
				return nil, fmt.Errorf("unhashable type: '%s'", pyType(kv))
			}
			v, err := literal(bud, x.vals[i])
			if err != nil {
				return nil, err
			}
			d.Set(kv, v)
		}
		return d, nil
	case *pList, *pTuple:
		var elts []pnode
		if l, ok := x.(*pList); ok {
			elts = l.elts
		} else {
			elts = x.(*pTuple).elts
		}
		out := make([]any, len(elts))
		for i, e := range elts {
			v, err := literal(bud, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		if _, ok := x.(*pTuple); ok {
			return Tuple(out), nil
		}
		return out, nil
	}
	if astDepth(n, maxUnparseDepth) > maxUnparseDepth {
		return nil, errUnparseDepth
	}
	return pyEval(bud, n)
}

// HandlerForModel is the handler BFCL's model registry of release v
// names for model (a v2 handler_map key or a v4 model_config key, e.g.
// "NousResearch/Hermes-2-Pro-Llama-3-8B", "Salesforce/xLAM-2-1b-fc-r").
func HandlerForModel(v Version, model string) (*Handler, bool) {
	m := modelsV4
	if v == V2 {
		m = modelsV2
	}
	name, ok := m[model]
	if !ok {
		return nil, false
	}
	return handlerByName(name), true
}
