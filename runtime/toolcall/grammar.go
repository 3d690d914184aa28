package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Choice reads a request's tool_choice: "auto" (also for none given),
// "none", "required", or a function's name for a named choice.
func Choice(raw json.RawMessage) (mode, name string) {
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "", "null", `"auto"`:
		return "auto", ""
	case `"none"`:
		return "none", ""
	case `"required"`:
		return "required", ""
	}
	var named struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &named) == nil && named.Function.Name != "" {
		return "named", named.Function.Name
	}
	return "auto", ""
}

// Grammar returns a GBNF grammar (llama.cpp's grammar format, root rule
// "root") that lets a model write exactly one call, in family f's format,
// of one of tools (an OpenAI tools array) — of the function name when it
// is not empty — with arguments that match the function's JSON Schema:
// tool_choice "required" or a named function enforced by constrained
// decoding, as llama-server does. The arguments are a JSON object with
// the schema's required properties in the schema's order, then any of the
// optional ones in order; property values follow their type, enum, const,
// anyOf/oneOf, items, properties and maxLength, and anything else is any
// JSON value.
func Grammar(f Family, tools json.RawMessage, name string) (string, error) {
	var list []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(tools, &list); err != nil {
		return "", fmt.Errorf("tool grammar: tools: %w", err)
	}
	g := &gbnf{rules: map[string]string{}}
	var calls []string
	for i, t := range list {
		fn := t.Function
		if fn.Name == "" || name != "" && fn.Name != name {
			continue
		}
		var schema any = map[string]any{"type": "object"}
		if len(bytes.TrimSpace(fn.Parameters)) > 0 && string(bytes.TrimSpace(fn.Parameters)) != "null" {
			dec := json.NewDecoder(bytes.NewReader(fn.Parameters))
			dec.UseNumber()
			if err := dec.Decode(&schema); err != nil {
				return "", fmt.Errorf("tool grammar: %s: parameters: %w", fn.Name, err)
			}
		}
		args := g.value(fmt.Sprintf("call%d-args", i), schema, 0)
		nameLit := literal(fmt.Sprintf("%q", fn.Name))
		var call string
		switch f {
		case Mistral:
			call = literal(`{"name": `) + " " + nameLit + " " + literal(`, "arguments": `) + " " + args + " " + literal("}")
		case Llama3:
			call = literal(`{"name": `) + " " + nameLit + " " + literal(`, "parameters": `) + " " + args + " " + literal("}")
		default:
			call = literal("<tool_call>\n"+`{"name": `) + " " + nameLit + " " + literal(`, "arguments": `) + " " + args + " " + literal("}\n</tool_call>")
		}
		calls = append(calls, g.add(fmt.Sprintf("call%d", i), call))
	}
	if len(calls) == 0 {
		if name != "" {
			return "", fmt.Errorf("tool grammar: no function %q among the tools", name)
		}
		return "", errors.New("tool grammar: no function among the tools")
	}
	root := strings.Join(calls, " | ")
	if f == Mistral {
		root = literal("[TOOL_CALLS][") + " ( " + root + " ) " + literal("]")
	}
	g.rules["root"] = root
	return g.String(), nil
}

// gbnf collects named rules.
type gbnf struct {
	rules map[string]string
}

func (g *gbnf) add(name, body string) string {
	g.rules[name] = body
	return name
}

func (g *gbnf) String() string {
	g.rules["space"] = `" "?`
	g.rules["string"] = `"\"" char* "\""`
	g.rules["char"] = `[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})`
	g.rules["integer"] = `"-"? ("0" | [1-9] [0-9]{0,15})`
	g.rules["number"] = `integer ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?`
	g.rules["boolean"] = `"true" | "false"`
	g.rules["null"] = `"null"`
	g.rules["value"] = `object | array | string | number | boolean | null`
	g.rules["object"] = `"{" space ( string space ":" space value ( "," space string space ":" space value )* )? space "}"`
	g.rules["array"] = `"[" space ( value ( "," space value )* )? space "]"`
	names := make([]string, 0, len(g.rules))
	for n := range g.rules {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("root ::= " + g.rules["root"] + "\n")
	for _, n := range names {
		if n != "root" {
			b.WriteString(n + " ::= " + g.rules[n] + "\n")
		}
	}
	return b.String()
}

// maxDepth bounds the nesting of schemas turned into rules; deeper values
// are any JSON value.
const maxDepth = 16

// value returns the rule (or expression) for a value matching schema.
func (g *gbnf) value(name string, schema any, depth int) string {
	s, ok := schema.(map[string]any)
	if !ok || depth > maxDepth {
		return "value"
	}
	if c, ok := s["const"]; ok {
		return g.add(name, jsonLiteral(c))
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		alts := make([]string, len(e))
		for i, v := range e {
			alts[i] = jsonLiteral(v)
		}
		return g.add(name, strings.Join(alts, " | "))
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if subs, ok := s[k].([]any); ok && len(subs) > 0 {
			alts := make([]string, len(subs))
			for i, sub := range subs {
				alts[i] = g.value(fmt.Sprintf("%s-%d", name, i), sub, depth+1)
			}
			return g.add(name, strings.Join(alts, " | "))
		}
	}
	switch t := s["type"].(type) {
	case []any:
		alts := make([]string, 0, len(t))
		for i, x := range t {
			sub := make(map[string]any, len(s))
			for k, v := range s {
				sub[k] = v
			}
			sub["type"] = x
			alts = append(alts, g.value(fmt.Sprintf("%s-t%d", name, i), sub, depth+1))
		}
		if len(alts) == 0 {
			return "value"
		}
		return g.add(name, strings.Join(alts, " | "))
	case string:
		switch t {
		case "string":
			if n, ok := intOf(s["maxLength"]); ok && n >= 0 && n < 10000 {
				return g.add(name, fmt.Sprintf(`"\"" char{0,%d} "\""`, n))
			}
			return "string"
		case "integer":
			return "integer"
		case "number":
			return "number"
		case "boolean":
			return "boolean"
		case "null":
			return "null"
		case "array":
			item := "value"
			if it, ok := s["items"]; ok {
				item = g.value(name+"-item", it, depth+1)
			}
			return g.add(name, `"[" space ( `+item+` ( "," space `+item+` )* )? space "]"`)
		case "object":
			return g.object(name, s, depth)
		}
	}
	if _, ok := s["properties"]; ok {
		return g.object(name, s, depth)
	}
	return "value"
}

// object is the rule of an object schema: its required properties in
// order, then any of the optional ones in order; without properties, any
// object.
func (g *gbnf) object(name string, s map[string]any, depth int) string {
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		if _, ok := s["properties"]; ok {
			return g.add(name, `"{" space "}"`)
		}
		return "object"
	}
	order := propertyOrder(s)
	required := map[string]bool{}
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if k, ok := x.(string); ok {
				required[k] = true
			}
		}
	}
	var req, opt []string
	for i, k := range order {
		kv := literal(fmt.Sprintf("%q", k)) + ` space ":" space ` + g.value(fmt.Sprintf("%s-p%d", name, i), props[k], depth+1)
		if required[k] {
			req = append(req, kv)
		} else {
			opt = append(opt, kv)
		}
	}
	body := `"{" space `
	if len(req) > 0 {
		body += strings.Join(req, ` "," space `)
		for _, o := range opt {
			body += ` ( "," space ` + o + ` )?`
		}
	} else {
		// any in-order subset of the optional properties
		alts := make([]string, len(opt))
		for i := range opt {
			a := opt[i]
			for _, o := range opt[i+1:] {
				a += ` ( "," space ` + o + ` )?`
			}
			alts[i] = a
		}
		body += "( " + strings.Join(alts, " | ") + " )?"
	}
	return g.add(name, body+` space "}"`)
}

// propertyOrder is the order of an object schema's properties as the
// client wrote them (json.Decoder lost it in the map; the schema's own
// "required" order leads, then the remaining names sorted).
func propertyOrder(s map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	seen := map[string]bool{}
	var order []string
	if r, ok := s["required"].([]any); ok {
		for _, x := range r {
			if k, ok := x.(string); ok && props[k] != nil && !seen[k] {
				order, seen[k] = append(order, k), true
			}
		}
	}
	var rest []string
	for k := range props {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

func intOf(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return int(i), err == nil
}

// jsonLiteral is a GBNF literal of v's JSON text.
func jsonLiteral(v any) string {
	b, _ := json.Marshal(v)
	return literal(string(b))
}

// literal quotes s as a GBNF string literal.
func literal(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\x%02X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
