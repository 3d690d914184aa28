// Package pyvalue gives template values the text forms Python gives them,
// because lm-evaluation-harness renders task templates with jinja2 and then
// reads some of the results back with ast.literal_eval:
//
//   - Str is Python's str(): what {{ x }} prints (None, True, 1.0,
//     ['a', "b's"]).
//   - Repr is Python's repr() (strings quoted and escaped as CPython does).
//   - ParseLiteral is the subset of ast.literal_eval that task files use:
//     strings, numbers, True/False/None, lists, tuples and dicts.
//
// Values are Value: documents held in the template engine's own model
// (internal/jinja, whose dict is internal/pyval's), so they render without
// a conversion; tuples become lists.
//
// Where each job lives: pyvalue.go, str() and repr(); literal.go, the
// literal_eval grammar (what a string or number literal means is
// internal/pyval's Unquote and Number); json.go, documents from JSON
// (jinja.FromJSON, json.loads's ordered values); value.go, the Value type.
package pyvalue

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// Str returns Python's str(v). An undefined value has no text: the caller
// decides whether that is an error (StrictUndefined) or "".
func Str(v Value) string {
	if v.IsString() {
		return v.AsString()
	}
	return Repr(v)
}

// Repr returns Python's repr(v).
func Repr(v Value) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v Value) {
	switch {
	case v.IsUndefined():
		b.WriteString("Undefined") // repr of jinja2's StrictUndefined
	case v.IsNone():
		b.WriteString("None")
	case v.IsBool():
		if v.AsBool() {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case v.IsInt():
		b.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		b.WriteString(pyval.FloatRepr(v.AsFloat()))
	case v.IsString():
		b.WriteString(pyval.StringRepr(v.AsString()))
	case v.IsList():
		b.WriteByte('[')
		for i, it := range v.AsList().Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it)
		}
		b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		b.WriteByte('{')
		for i, k := range d.OrderedKeys() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyval.StringRepr(k))
			b.WriteString(": ")
			val, _ := d.Get(k)
			writeRepr(b, val)
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%v", v.v)
	}
}

// IsDigit reports whether s is non-empty and every character is a decimal
// digit (Python's str.isdigit, restricted to Unicode category Nd).
func IsDigit(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
