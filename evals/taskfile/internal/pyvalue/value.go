package pyvalue

import (
	"github.com/pocketeval/pocketeval/internal/jinja"
)

// Value is a task file's document value. It holds a value of the
// template engine's own model (internal/jinja: nil is None, bool, int64,
// float64, string, []any a list, *jinja.Dict an ordered dict with string
// keys), so a document renders as it is, without a conversion; the zero
// Value is undefined.
type Value struct {
	v  any
	ok bool
}

// Undefined returns the undefined value.
func Undefined() Value { return Value{} }

// None returns Python's None.
func None() Value { return Value{ok: true} }

// NewBool returns a bool value.
func NewBool(b bool) Value { return Value{v: b, ok: true} }

// NewInt returns an int value.
func NewInt(n int64) Value { return Value{v: n, ok: true} }

// NewFloat returns a float value.
func NewFloat(f float64) Value { return Value{v: f, ok: true} }

// NewString returns a str value.
func NewString(s string) Value { return Value{v: s, ok: true} }

// NewList returns a list of items.
func NewList(items []Value) Value {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it.Any()
	}
	return Value{v: out, ok: true}
}

// NewDict returns an empty dict.
func NewDict() Value { return Value{v: jinja.NewDict(), ok: true} }

// Any returns v in the template engine's model.
func (v Value) Any() any {
	if !v.ok {
		return jinja.Undefined{}
	}
	return v.v
}

// wrap returns x (of the engine's model) as a Value.
func wrap(x any) Value {
	if _, undef := x.(jinja.Undefined); undef {
		return Value{}
	}
	return Value{v: x, ok: true}
}

// IsUndefined reports whether v is undefined.
func (v Value) IsUndefined() bool { return !v.ok }

// IsNone reports whether v is None.
func (v Value) IsNone() bool { return v.ok && v.v == nil }

// IsBool reports whether v is a bool.
func (v Value) IsBool() bool { _, ok := v.v.(bool); return ok }

// IsInt reports whether v is an int.
func (v Value) IsInt() bool { _, ok := v.v.(int64); return ok }

// IsFloat reports whether v is a float.
func (v Value) IsFloat() bool { _, ok := v.v.(float64); return ok }

// IsString reports whether v is a str.
func (v Value) IsString() bool { _, ok := v.v.(string); return ok }

// IsList reports whether v is a list.
func (v Value) IsList() bool { _, ok := v.v.([]any); return ok }

// IsDict reports whether v is a dict.
func (v Value) IsDict() bool { _, ok := v.v.(*jinja.Dict); return ok }

// AsBool returns the bool v holds; it panics on another kind.
func (v Value) AsBool() bool { return v.v.(bool) }

// AsInt returns the int v holds; it panics on another kind.
func (v Value) AsInt() int64 { return v.v.(int64) }

// AsFloat returns the float v holds; it panics on another kind.
func (v Value) AsFloat() float64 { return v.v.(float64) }

// AsString returns the str v holds; it panics on another kind.
func (v Value) AsString() string { return v.v.(string) }

// List is a list's items, read through Value.AsList.
type List struct{ Items []Value }

// Len is the number of items.
func (l *List) Len() int { return len(l.Items) }

// AsList returns the items of the list v holds; it panics on another kind.
func (v Value) AsList() *List {
	xs := v.v.([]any)
	items := make([]Value, len(xs))
	for i, x := range xs {
		items[i] = wrap(x)
	}
	return &List{Items: items}
}

// Dict is an insertion-ordered dict with string keys.
type Dict struct{ d *jinja.Dict }

// AsDict returns the dict v holds; it panics on another kind.
func (v Value) AsDict() *Dict { return &Dict{v.v.(*jinja.Dict)} }

// Get returns the value of key.
func (d *Dict) Get(key string) (Value, bool) {
	x, ok := d.d.Get(key)
	if !ok {
		return Value{}, false
	}
	return wrap(x), true
}

// Set sets key to val, keeping the key's first position.
func (d *Dict) Set(key string, val Value) { d.d.Set(key, val.Any()) }

// Len is the number of keys.
func (d *Dict) Len() int { return d.d.Len() }

// OrderedKeys returns the keys in insertion order.
func (d *Dict) OrderedKeys() []string {
	keys := d.d.Keys()
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i], _ = k.(string)
	}
	return out
}

// String is Python's repr of v ("Undefined" when undefined).
func (v Value) String() string { return Repr(v) }
