package chattemplate

import (
	"reflect"
	"sort"

	"github.com/ardanlabs/jinja"

	"github.com/pocketeval/pocketeval/runtime/chat"
)

// toValue converts a Go value to a Jinja value. Maps become dicts with
// sorted keys; chat.Message becomes {"role", "content"} in that order,
// as a Python dict literal would be.
func toValue(v any) jinja.Value {
	switch x := v.(type) {
	case nil:
		return jinja.None()
	case jinja.Value:
		return x
	case string:
		return jinja.NewString(x)
	case bool:
		return jinja.NewBool(x)
	case chat.Message:
		return messageValue(x)
	case []chat.Message:
		items := make([]jinja.Value, len(x))
		for i, m := range x {
			items[i] = messageValue(m)
		}
		return jinja.NewList(items)
	case map[string]any:
		d := jinja.NewDict()
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d.AsDict().Set(k, toValue(x[k]))
		}
		return d
	case []any:
		items := make([]jinja.Value, len(x))
		for i, e := range x {
			items[i] = toValue(e)
		}
		return jinja.NewList(items)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jinja.NewInt(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jinja.NewInt(int64(rv.Uint()))
	case reflect.Float32, reflect.Float64:
		return jinja.NewFloat(rv.Float())
	case reflect.String:
		return jinja.NewString(rv.String())
	case reflect.Bool:
		return jinja.NewBool(rv.Bool())
	case reflect.Slice, reflect.Array:
		items := make([]jinja.Value, rv.Len())
		for i := range rv.Len() {
			items[i] = toValue(rv.Index(i).Interface())
		}
		return jinja.NewList(items)
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
			d.AsDict().Set(k, toValue(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface()))
		}
		return d
	case reflect.Pointer:
		if rv.IsNil() {
			return jinja.None()
		}
		return toValue(rv.Elem().Interface())
	}
	return jinja.Undefined()
}

func messageValue(m chat.Message) jinja.Value {
	d := jinja.NewDict()
	d.AsDict().Set("role", jinja.NewString(m.Role))
	d.AsDict().Set("content", jinja.NewString(m.Content))
	return d
}
