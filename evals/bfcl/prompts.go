package bfcl

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/jinja"
	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// The v2 (August 2024) prompt: BFCL's SYSTEM_PROMPT_FOR_CHAT_MODEL and
// USER_PROMPT_FOR_CHAT_MODEL (model_handler/constant.py), the functions
// as Python's str() of the list.
const (
	v2SystemPrompt = "\n    You are an expert in composing functions. You are given a question and a set of possible functions. \n    Based on the question, you will need to make one or more function/tool calls to achieve the purpose. \n    If none of the function can be used, point it out. If the given question lacks the parameters required by the function,\n    also point it out. You should only return the function call in tools call sections.\n    "
	v2UserPrompt   = "\n    Questions:%s\nHere is a list of functions in JSON format that you can invoke:\n%s. \n    Should you decide to return the function call(s),Put it in the format of [func1(params_name=params_value, params_name2=params_value2...), func2(params)]\n\n    NO other text MUST be included. \n"
)

// The v4 default system prompt (bfcl_eval/constants/default_prompts.py,
// format "ret_fmt=python&tool_call_tag=False&func_doc_fmt=json&
// prompt_fmt=plaintext&style=classic"), assembled as formulate_system_prompt
// does: "{persona}{task}\n\n{tool_call_format}\n\n{multiturn_behavior}\n\n
// {available_tools}".
const (
	v4Persona    = "You are an expert in composing functions."
	v4Task       = "You are given a question and a set of possible functions. Based on the question, you will need to make one or more function/tool calls to achieve the purpose. If none of the functions can be used, point it out. If the given question lacks the parameters required by the function, also point it out."
	v4ToolFormat = "You should only return the function calls in your response.\n\nIf you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)].  You SHOULD NOT include any other text in the response."
	v4Multiturn  = "At each turn, you should try your best to complete the tasks requested by the user within the current turn. Continue to output functions to call until you have fulfilled the user's request to the best of your ability. Once you have no more functions to call, the system will consider the current turn complete and proceed to the next turn or task."
	v4Tools      = "Here is a list of functions in json format that you can invoke.\n%s\n"
	pythonHint   = " Note that the provided function is in Python 3 syntax."
)

// withHint adds BFCL v4's language hint to every description, as its data
// loader does (_func_doc_language_specific_pre_processing).
func withHint(funcs any) []any {
	list, _ := funcs.([]any)
	out := make([]any, len(list))
	for i, f := range list {
		d, ok := f.(*jinja.Dict)
		if !ok {
			out[i] = f
			continue
		}
		c := copyDict(d)
		desc, _ := c.Get("description")
		c.Set("description", jinja.Str(desc)+pythonHint)
		out[i] = c
	}
	return out
}

func copyDict(d *jinja.Dict) *jinja.Dict {
	c := jinja.NewDict()
	for _, k := range d.Keys() {
		v, _ := d.Get(k)
		c.Set(k, v)
	}
	return c
}

func v4SystemPrompt(funcs any) (string, error) {
	doc, err := jinja.DumpJSON(withHint(funcs), true, 4)
	if err != nil {
		return "", err
	}
	return v4Persona + v4Task + "\n\n" + v4ToolFormat + "\n\n" + v4Multiturn + "\n\n" + fmt.Sprintf(v4Tools, doc), nil
}

// gorillaToOpenAPI is BFCL's GORILLA_TO_OPENAPI type mapping.
var gorillaToOpenAPI = map[string]string{"integer": "integer", "number": "number", "float": "number", "string": "string", "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array", "dict": "object", "object": "object", "tuple": "array", "any": "string", "byte": "integer", "short": "integer", "long": "integer", "double": "number", "char": "string", "ArrayList": "array", "Array": "array", "HashMap": "object", "Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string", "String": "string", "Bigint": "integer"}

// openAITools is BFCL's convert_to_tool for OpenAI-style models: names
// with "." written "_", parameters typed "object", property types mapped
// (a float gets format "float" and " This is a float type value." in its
// description), nested properties and items converted, each wrapped as
// {"type": "function", "function": ...}. owned says funcs is the
// caller's own decoding, which it may change: it is not copied first.
func openAITools(funcs any, v scorer.Version, owned bool) (json.RawMessage, error) {
	list := funcs
	if d, ok := funcs.(*jinja.Dict); ok {
		list = []any{d}
	}
	if v == scorer.V4 {
		list = withHint(list)
	}
	var tools []any
	for _, f := range list.([]any) {
		d, ok := f.(*jinja.Dict)
		if !ok {
			return nil, fmt.Errorf("function: want objects")
		}
		item := d
		if !owned {
			item = deepCopy(d).(*jinja.Dict)
		}
		name, _ := item.Get("name")
		item.Set("name", strings.ReplaceAll(jinja.Str(name), ".", "_"))
		if p, ok := item.Get("parameters"); ok {
			if pd, ok := p.(*jinja.Dict); ok {
				pd.Set("type", "object")
				if props, ok := pd.Get("properties"); ok {
					if pp, ok := props.(*jinja.Dict); ok {
						castTypes(pp)
					}
				}
			}
		}
		tool := jinja.NewDict()
		tool.Set("type", "function")
		tool.Set("function", item)
		tools = append(tools, tool)
	}
	s, err := jinja.DumpJSON(tools, false, -1)
	return json.RawMessage(s), err
}

func castTypes(props *jinja.Dict) {
	for _, k := range props.Keys() {
		v, _ := props.Get(k)
		p, ok := v.(*jinja.Dict)
		if !ok {
			continue
		}
		t, has := p.Get("type")
		ts, _ := t.(string)
		switch {
		case !has:
			p.Set("type", "string")
		default:
			if ts == "float" {
				p.Set("format", "float")
				desc, _ := p.Get("description")
				p.Set("description", jinja.Str(desc)+" This is a float type value.")
			}
			if m, ok := gorillaToOpenAPI[ts]; ok {
				p.Set("type", m)
			} else {
				p.Set("type", "string")
			}
		}
		nt, _ := p.Get("type")
		if nt != "array" && nt != "object" {
			continue
		}
		if sub, ok := p.Get("properties"); ok {
			if sp, ok := sub.(*jinja.Dict); ok {
				castTypes(sp)
			}
		} else if items, ok := p.Get("items"); ok {
			if it, ok := items.(*jinja.Dict); ok {
				itype, _ := it.Get("type")
				m := gorillaToOpenAPI[jinja.Str(itype)]
				it.Set("type", m)
				if sub, ok := it.Get("items"); ok && m == "array" {
					if si, ok := sub.(*jinja.Dict); ok {
						st, _ := si.Get("type")
						si.Set("type", gorillaToOpenAPI[jinja.Str(st)])
					}
				} else if sub, ok := it.Get("properties"); ok && m == "object" {
					if sp, ok := sub.(*jinja.Dict); ok {
						castTypes(sp)
					}
				}
			}
		}
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case *jinja.Dict:
		c := jinja.NewDict()
		for _, k := range x.Keys() {
			val, _ := x.Get(k)
			c.Set(k, deepCopy(val))
		}
		return c
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
