package pyval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"
)

// shape writes v with its types, dict keys in order, for comparing two
// decodings.
func shape(b *strings.Builder, v any) {
	switch x := v.(type) {
	case *pairs:
		b.WriteString("{")
		for i := range x.k {
			shape(b, x.k[i])
			b.WriteString(": ")
			shape(b, x.v[i])
			b.WriteString(", ")
		}
		b.WriteString("}")
	case *Dict:
		b.WriteString("{")
		for i, k := range x.Keys() {
			shape(b, k)
			b.WriteString(": ")
			shape(b, x.Values()[i])
			b.WriteString(", ")
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for _, e := range x {
			shape(b, e)
			b.WriteString(", ")
		}
		b.WriteString("]")
	case float64:
		fmt.Fprintf(b, "float(%v/%x)", x, math.Float64bits(x))
	case *big.Int:
		fmt.Fprintf(b, "big(%s)", x)
	default:
		fmt.Fprintf(b, "%T(%q)", x, fmt.Sprint(x))
	}
}

// slowDecode is DecodeJSON over a whole document, as its callers use it.
func slowDecode(o JSON, data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := o.DecodeJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("extra data")
	}
	return v, nil
}

func checkDecodeBytes(t *testing.T, o JSON, data []byte) (fast bool) {
	t.Helper()
	got, ok := o.DecodeBytes(data)
	fromString, sok := o.DecodeString(string(data))
	want, err := slowDecode(o, data)
	if ok != sok {
		t.Fatalf("%q: DecodeBytes ok=%v, DecodeString ok=%v", data, ok, sok)
	}
	if !ok {
		return false
	}
	var fs strings.Builder
	shape(&fs, fromString)
	if err != nil {
		t.Fatalf("%q: DecodeBytes gave %v, DecodeJSON the error %v", data, got, err)
	}
	var g, w strings.Builder
	shape(&g, got)
	shape(&w, want)
	if fs.String() != w.String() {
		t.Fatalf("%q:\nDecodeString %s\nDecodeJSON   %s", data, fs.String(), w.String())
	}
	if g.String() != w.String() {
		t.Fatalf("%q:\nDecodeBytes %s\nDecodeJSON  %s", data, g.String(), w.String())
	}
	return true
}

var decodeBytesSeeds = []string{
	`{"b": 1, "a": 1.0, "b": [2, -9223372036854775808, 18446744073709551616]}`,
	` [1, -0, 0.5, 1e3, 1E+3, -2.5e-3, 1e400, 01, 1., .5, +1, -] `,
	`[1e400]`, `[-1e400]`, `[01]`, `[1.]`, `[.5]`, `[+1]`, `[-]`, `[-0]`, `[0e0]`, `[123456789012345678901234567890]`,
	`"\u0000NaN"`, `["\u0000Infinity", "\u0000-Infinity", "\u0000x"]`,
	`"a\"b\\c\/d\be\ff\ng\rh\ti\u00e9\u20AC\uD83D\uDE00"`, `"\ud800"`, `"\udc00x"`, `"\uD83Dx"`, `"\uD83D\u0041"`,
	`"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01b\"", "\"\xff\xfe\"", "\"é€😀\"", "\"\xed\xa0\x80\"",
	`{"a": {"b": {"c": [[[]]]}}, "": {}, "d": []}`, `{"a" 1}`, `{"a": 1,}`, `[1,]`, `[1 2]`, `{1: 2}`, `{"a": 1`, `[`, ``, ` `,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `[true, false, null]`, `1 2`, `{} x`, "\t\r\n[ ]\n",
	`{"k": 1, "K": 2, "k": 3}`, `{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "a": 10, "j": [1, {"a": 1, "a": 2}]}`, `{"\u006b": 1, "k": 2}`, `[[[[[[[[[[1]]]]]]]]]]`,
}

func TestDecodeBytesAsDecodeJSON(t *testing.T) {
	opts := map[string]JSON{
		"plain":     {NewDict: func() interface{ Set(k, v any) } { return &pairs{} }},
		"dict":      {NewDict: func() interface{ Set(k, v any) } { return NewDict() }, MaxDepth: 6},
		"constants": {NewDict: func() interface{ Set(k, v any) } { return &pairs{} }, Constants: true, MaxDepth: 4},
		"bigfloat": {NewDict: func() interface{ Set(k, v any) } { return &pairs{} }, BigInt: func(s string) (any, error) {
			if len(s) > 25 {
				return nil, fmt.Errorf("too long")
			}
			return s, nil
		}},
	}
	fast := 0
	for name, o := range opts {
		for _, s := range decodeBytesSeeds {
			t.Run(name, func(t *testing.T) {
				if checkDecodeBytes(t, o, JSONConstants([]byte(s))) {
					fast++
				}
			})
		}
	}
	if fast < len(decodeBytesSeeds) {
		t.Errorf("only %d of %d decodings took the fast path", fast, len(opts)*len(decodeBytesSeeds))
	}
}

func FuzzDecodeBytes(f *testing.F) {
	for _, s := range decodeBytesSeeds {
		f.Add(s)
	}
	o := JSON{NewDict: func() interface{ Set(k, v any) } { return NewDict() }, Constants: true, MaxDepth: 8}
	f.Fuzz(func(t *testing.T, s string) {
		checkDecodeBytes(t, o, JSONConstants([]byte(s)))
	})
}
