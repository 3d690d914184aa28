package jinja

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// Values are plain Go values: nil is None, bool, int64, float64, string,
// Markup (a string marked safe), []any (a list), Tuple, *Dict (insertion
// ordered), *Namespace, Undefined and Callable.

// Markup is a string marked safe (jinja2's markupsafe.Markup): adding a
// plain string to it escapes that string.
type Markup string

// Tuple is a Python tuple.
type Tuple = pyval.Tuple

// Generator is the lazy, single-use result of jinja2's map, select,
// reject, selectattr, rejectattr, unique, items, batch and (for lists)
// reverse: always true, without a length, not JSON serializable, and
// empty once iterated.
type Generator struct {
	items []any
	used  bool
	kind  string // "generator" or "list_reverseiterator"
}

func newGen(items []any) *Generator { return &Generator{items: items, kind: "generator"} }

// Undefined is a missing variable, attribute or item.
type Undefined struct {
	hint string // "'x' is undefined" or "'dict object' has no attribute 'y'"
}

// Callable is a function callable from a template.
type Callable struct {
	Name string
	Fn   func(r *Renderer, args []any, kw []Kwarg) (any, error)
}

// Kwarg is a keyword argument, kept in call order.
type Kwarg struct {
	Name  string
	Value any
}

// Dict is Python's insertion-ordered dict (pyval.Dict).
type Dict = pyval.Dict

// NewDict returns an empty dict.
func NewDict() *Dict { return pyval.NewDict() }

func hashable(k any) bool {
	switch k.(type) {
	case nil, bool, int64, float64, string, Markup:
		return true
	}
	return false
}

// Namespace is jinja2's namespace(): attributes that {% set ns.x %} can
// assign from inside loops.
type Namespace struct{ d *Dict }

// FromGo converts Go values (maps with string keys are sorted by key,
// as no order is given) to template values.
func FromGo(v any) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, Markup, Tuple, *Dict, *Namespace, Undefined, *Callable:
		return x
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = FromGo(e)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict()
		for _, k := range keys {
			d.Set(k, FromGo(x[k]))
		}
		return d
	}
	return Undefined{hint: "unsupported Go value"}
}

func truthy(v any) bool {
	switch x := v.(type) {
	case Undefined:
		return false
	case Markup:
		return x != ""
	}
	if t, known := pyval.Truth(v); known {
		return t
	}
	return true
}

// typeName is Python's type name, for error messages.
func typeName(v any) string {
	switch x := v.(type) {
	case Markup:
		return "Markup"
	case *Namespace:
		return "Namespace"
	case Undefined:
		return "Undefined"
	case *Callable:
		return "function"
	case *Generator:
		return x.kind
	case *loopCtx:
		return "LoopContext"
	}
	if n := pyval.TypeName(v); n != "" {
		return n
	}
	return "object"
}

// Str is Python's str(v).
func Str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case Markup:
		return string(x)
	case Undefined:
		return ""
	}
	return Repr(v)
}

// Repr is Python's repr(v).
func Repr(v any) string {
	var b reprBuf
	writeRepr(&b, v)
	return b.String()
}

// reprBuf is where a repr is built: with max > 0 it stops growing once
// past max bytes (full), so that printing a value that refers many times
// to one large list (a = [[1]*10**6]*1000) never builds more than max.
type reprBuf struct {
	strings.Builder
	max int
}

func (b *reprBuf) full() bool { return b.max > 0 && b.Len() > b.max }

func writeRepr(b *reprBuf, v any) {
	if b.full() {
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(pyval.FloatRepr(x))
	case string:
		b.WriteString(pyval.StringRepr(x))
	case Markup:
		b.WriteString("Markup(" + pyval.StringRepr(string(x)) + ")")
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if b.full() {
				return
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		for i, e := range x {
			if b.full() {
				return
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		if len(x) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	case *Dict:
		b.WriteByte('{')
		for i, k := range x.Keys() {
			if b.full() {
				return
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, k)
			b.WriteString(": ")
			val, _ := x.Get(k)
			writeRepr(b, val)
		}
		b.WriteByte('}')
	case *Namespace:
		b.WriteString("<Namespace ")
		writeRepr(b, x.d)
		b.WriteString(">")
	case Undefined:
		b.WriteString("Undefined")
	case *Callable:
		b.WriteString("<function " + x.Name + ">")
	case *Generator:
		b.WriteString("<" + x.kind + " object>")
	default:
		b.WriteString("<object>")
	}
}

// escapeHTML is markupsafe's escape.
func escapeHTML(s string) string {
	if !strings.ContainsAny(s, "&<>'\"") {
		return s
	}
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "'", "&#39;", `"`, "&#34;")
	return r.Replace(s)
}
