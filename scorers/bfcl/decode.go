package bfcl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// DecodePrompt decodes a prompt-mode answer ("[f(a=1), g(b='x')]") as
// BFCL's decode_ast does: V4 is default_decode_ast_prompting (strip
// "`", newlines and spaces from both ends, add missing brackets, strip
// quotes, ast.parse, every element a call resolved by resolve_ast_call);
// V2 is the August 2024 ast_parse (ast.parse of the text as given, every
// element a call resolved by resolve_ast_by_type, which makes a call
// without keyword arguments a string). result is the recorded result: a
// string, or any other JSON value (which cannot be decoded).
func DecodePrompt(v Version, result any) ([]any, error) {
	s, ok := result.(string)
	if !ok {
		return nil, fmt.Errorf("the result is a %s, not a string", pyType(result))
	}
	bud := &budget{}
	if v == V2 {
		body, err := parseBounded(s)
		if err != nil {
			return nil, err
		}
		elts, err := elements(body)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(elts))
		for _, e := range elts {
			c, ok := e.(*pCall)
			if !ok {
				return nil, errors.New("") // BFCL: assert isinstance(elem, ast.Call)
			}
			x, err := resolveValue(bud, c)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, bud.err()
	}
	s = strings.Trim(s, "`\n ")
	if !strings.HasPrefix(s, "[") {
		s = "[" + s
	}
	if !strings.HasSuffix(s, "]") {
		s += "]"
	}
	s = strings.Trim(strings.TrimFunc(s, isPySpace), "'")
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

func isPySpace(r rune) bool {
	return strings.ContainsRune(" \t\n\r\v\f\x1c\x1d\x1e\x1f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000", r)
}

// elements is parsed.body.elts: a list, tuple or set display has them.
func elements(body pnode) ([]pnode, error) {
	switch b := body.(type) {
	case *pList:
		return b.elts, nil
	case *pTuple:
		return b.elts, nil
	case *pSet:
		return b.elts, nil
	}
	return nil, errors.New("'Node' object has no attribute 'elts'")
}

// DecodeFC decodes a function-calling result as BFCL's FC handlers do:
// a list of {name: arguments}, each arguments a JSON string given to
// json.loads.
func DecodeFC(result any) ([]any, error) {
	var items []any
	switch r := result.(type) {
	case []any:
		items = r
	case string:
		if r == "" {
			return []any{}, nil
		}
		return nil, errors.New("'str' object has no attribute 'keys'")
	case *Dict:
		if len(r.Keys()) == 0 {
			return []any{}, nil
		}
		return nil, errors.New("'str' object has no attribute 'keys'")
	default:
		return nil, fmt.Errorf("'%s' object is not iterable", pyType(result))
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		d, ok := it.(*Dict)
		if !ok {
			return nil, fmt.Errorf("'%s' object has no attribute 'keys'", pyType(it))
		}
		if len(d.Keys()) == 0 {
			return nil, errors.New("list index out of range")
		}
		args, ok := d.Values()[0].(string)
		if !ok {
			return nil, fmt.Errorf("the JSON object must be str, bytes or bytearray, not %s", pyType(d.Values()[0]))
		}
		params, err := ParseJSONString(args)
		if err != nil {
			return nil, err
		}
		call := &Dict{}
		call.Set(d.Keys()[0], params)
		out = append(out, call)
	}
	return out, nil
}

// IsCallList is BFCL's is_function_calling_format_output.
func IsCallList(decoded []any) bool {
	for _, it := range decoded {
		if _, ok := it.(*Dict); !ok {
			return false
		}
	}
	return true
}

// IsEmpty is BFCL's is_empty_output: not calls, no call, or one empty call.
func IsEmpty(decoded []any) bool {
	if !IsCallList(decoded) || len(decoded) == 0 {
		return true
	}
	return len(decoded) == 1 && len(decoded[0].(*Dict).Keys()) == 0
}

// ParseJSON is Python's json.loads: objects keep key order, integers are
// int and other numbers float; NaN, Infinity and -Infinity are accepted.
func ParseJSON(data []byte) (any, error) {
	data = bytes.TrimSpace(data)
	fixed := pyval.JSONConstants(data)
	if v, ok := jsonDecoder.DecodeBytes(fixed); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(fixed))
	dec.UseNumber()
	v, err := jsonDecoder.DecodeJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("Extra data")
	}
	return v, nil
}

// ParseJSONString is ParseJSON of s; the strings of the value are parts
// of s.
func ParseJSONString(s string) (any, error) {
	t := strings.TrimSpace(s)
	if !strings.Contains(t, "NaN") && !strings.Contains(t, "Infinity") {
		if v, ok := jsonDecoder.DecodeString(t); ok {
			return v, nil
		}
	}
	return ParseJSON([]byte(s))
}

// jsonDecoder builds JSON into BFCL's values, NaN and ±Infinity
// accepted; json.loads' RecursionError past maxJSONDepth; an integer past
// 64 bits is a *big.Int, as Python's int, up to Python 3.11's
// int_max_str_digits.
var jsonDecoder = pyval.JSON{
	NewDict: func() interface{ Set(k, v any) } { return &Dict{} },
	BigInt: func(s string) (any, error) {
		if d := len(strings.TrimPrefix(s, "-")); d > maxIntDigits {
			return nil, fmt.Errorf("Exceeds the limit (%d digits) for integer string conversion: value has %d digits", maxIntDigits, d)
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("invalid integer %q", s)
		}
		return n, nil
	},
	Constants: true,
	MaxDepth:  maxJSONDepth,
}
