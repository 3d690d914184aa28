package chattemplate

import (
	"encoding/json"
	"reflect"
	"sort"

	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/runtime/chat"
)

// toValue converts a Go value to a template value. Maps become dicts with
// sorted keys (Go maps have no order); json.RawMessage keeps the order
// and number types of its JSON, as Python's json.loads does;
// chat.Message becomes the dict an OpenAI-style message is.
func toValue(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string, bool, int64, float64, jinja.Markup, jinja.Tuple, *jinja.Dict, *jinja.Callable:
		return x
	case json.RawMessage:
		val, err := jinja.FromJSON(x)
		if err != nil {
			return jinja.Undefined{}
		}
		return val
	case chat.Message:
		return messageValue(x)
	case []chat.Message:
		items := make([]any, len(x))
		for i, m := range x {
			items[i] = messageValue(m)
		}
		return items
	case map[string]any:
		d := jinja.NewDict()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d.Set(k, toValue(x[k]))
		}
		return d
	case []any:
		items := make([]any, len(x))
		for i, e := range x {
			items[i] = toValue(e)
		}
		return items
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Slice, reflect.Array:
		items := make([]any, rv.Len())
		for i := range rv.Len() {
			items[i] = toValue(rv.Index(i).Interface())
		}
		return items
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			break
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		d := jinja.NewDict()
		for _, k := range keys {
			d.Set(k, toValue(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface()))
		}
		return d
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		return toValue(rv.Elem().Interface())
	}
	return jinja.Undefined{}
}

// messageValue is the dict transformers gives a template for a message:
// role and content, then, when set, an assistant's tool_calls (each
// {"id", "type": "function", "function": {"name", "arguments"}}, the
// arguments a dict when they are a JSON object, as templates expect),
// a tool result's tool_call_id and name, and reasoning_content.
func messageValue(m chat.Message) any {
	d := jinja.NewDict()
	d.Set("role", m.Role)
	d.Set("content", m.Content)
	if len(m.ToolCalls) > 0 {
		calls := make([]any, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			fn := jinja.NewDict()
			fn.Set("name", c.Name)
			var args any = c.Arguments
			if v, err := jinja.FromJSON([]byte(c.Arguments)); err == nil {
				if _, ok := v.(*jinja.Dict); ok {
					args = v
				}
			}
			fn.Set("arguments", args)
			call := jinja.NewDict()
			if c.ID != "" {
				call.Set("id", c.ID)
			}
			call.Set("type", "function")
			call.Set("function", fn)
			calls[i] = call
		}
		d.Set("tool_calls", calls)
	}
	if m.ToolCallID != "" {
		d.Set("tool_call_id", m.ToolCallID)
	}
	if m.Name != "" {
		d.Set("name", m.Name)
	}
	if m.ReasoningContent != "" {
		d.Set("reasoning_content", m.ReasoningContent)
	}
	return d
}
