package pyval

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// DecodeBytes reads data, one JSON value between JSON whitespace, into the
// values DecodeJSON builds from it, without encoding/json's token stream
// (a JSON document of a few kilobytes decodes several times faster). ok is
// false when data is not such a value or holds what this path leaves to
// DecodeJSON (a value DecodeJSON refuses, nesting past MaxDepth, a string
// with a surrogate escape or invalid UTF-8, which it decodes as
// encoding/json does); the caller then decodes with DecodeJSON, which
// gives the value or the error. Whatever DecodeBytes returns with ok,
// DecodeJSON returns from the same data.
func (o JSON) DecodeBytes(data []byte) (v any, ok bool) {
	return o.decodeAll(data, "")
}

// DecodeString is DecodeBytes on the bytes of s; the strings it returns
// are parts of s (no copies).
func (o JSON) DecodeString(s string) (v any, ok bool) {
	return o.decodeAll(unsafe.Slice(unsafe.StringData(s), len(s)), s)
}

func (o JSON) decodeAll(data []byte, src string) (v any, ok bool) {
	p := jsonBytes{o: &o, data: data, src: src}
	if st, _ := stacks.Get().(*[]any); st != nil {
		p.stack = (*st)[:0]
	}
	p.space()
	v, ok = p.value(0)
	if ok {
		p.space()
		ok = p.pos == len(p.data)
	}
	if cap(p.stack) <= maxPooledStack {
		clear(p.stack[:p.high])
		st := p.stack[:0]
		stacks.Put(&st)
	}
	if !ok {
		return nil, false
	}
	return v, true
}

// stacks keeps the scratch stacks of decodings (*[]any) for the next.
var stacks sync.Pool

// maxPooledStack bounds the stacks kept in stacks.
const maxPooledStack = 1 << 12

type jsonBytes struct {
	o    *JSON
	data []byte // only read
	src  string // data as a string, when decoding one

	pos   int
	stack []any // the items of the arrays and objects being read
	high  int   // the most items stack held
}

// sizer is a dict that can make room for n keys before they are set.
type sizer interface{ Grow(n int) }

func (p *jsonBytes) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonBytes) value(depth int) (any, bool) {
	if p.pos >= len(p.data) {
		return nil, false
	}
	switch c := p.data[p.pos]; c {
	case '{', '[':
		if p.o.MaxDepth > 0 && depth >= p.o.MaxDepth {
			return nil, false
		}
		p.pos++
		if c == '[' {
			return p.array(depth)
		}
		return p.object(depth)
	case '"':
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		return p.o.stringValue(s), true
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	}
	return p.number()
}

func (p *jsonBytes) literal(w string) bool {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(w)) {
		return false
	}
	p.pos += len(w)
	return true
}

func (p *jsonBytes) array(depth int) (any, bool) {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return []any{}, true
	}
	base := len(p.stack)
	defer func() { p.stack = p.stack[:base] }()
	for {
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, v)
		p.high = max(p.high, len(p.stack))
		p.space()
		if p.pos >= len(p.data) {
			return nil, false
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return append([]any(nil), p.stack[base:]...), true
		default:
			return nil, false
		}
	}
}

func (p *jsonBytes) object(depth int) (any, bool) {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return p.o.NewDict(), true
	}
	base := len(p.stack)
	defer func() { p.stack = p.stack[:base] }()
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, false
		}
		p.pos++
		p.space()
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, k, v)
		p.high = max(p.high, len(p.stack))
		p.space()
		if p.pos >= len(p.data) {
			return nil, false
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			d := p.o.NewDict()
			items := p.stack[base:]
			if g, ok := d.(sizer); ok {
				g.Grow(len(items) / 2)
			}
			for i := 0; i < len(items); i += 2 {
				d.Set(items[i], items[i+1])
			}
			return d, true
		default:
			return nil, false
		}
	}
}

// str reads the string literal at p.pos as encoding/json unquotes it.
func (p *jsonBytes) str() (string, bool) {
	start := p.pos
	p.pos++
	escaped, wide := false, false
	for {
		if p.pos >= len(p.data) {
			return "", false
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			lit := p.data[start : p.pos+1]
			p.pos++
			body := lit[1 : len(lit)-1]
			if wide && !utf8.Valid(body) {
				return unquoteJSON(lit)
			}
			if !escaped {
				if p.src != "" {
					return p.src[start+1 : p.pos-1], true
				}
				return string(body), true
			}
			return unescapeJSON(lit)
		case c == '\\':
			escaped = true
			p.pos += 2
			continue
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			wide = true
		}
		p.pos++
	}
}

// unescapeJSON decodes a string literal of valid UTF-8 with escapes; a
// surrogate escape is left to encoding/json (its pairing and replacement
// rules).
func unescapeJSON(lit []byte) (string, bool) {
	body := lit[1 : len(lit)-1]
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			b = append(b, body[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if i+4 >= len(body) {
				return "", false
			}
			r, ok := hex4(body[i+1 : i+5])
			if !ok {
				return "", false
			}
			if r >= 0xd800 && r < 0xe000 {
				return unquoteJSON(lit)
			}
			b = utf8.AppendRune(b, r)
			i += 4
		default:
			return "", false
		}
	}
	return string(b), true
}

func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// unquoteJSON is encoding/json's reading of a string literal.
func unquoteJSON(lit []byte) (string, bool) {
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return "", false
	}
	return s, true
}

// number reads a number as JSON's grammar has it
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?).
func (p *jsonBytes) number() (any, bool) {
	d, i := p.data, p.pos
	digits := func() bool {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	s := string(d[p.pos:i])
	p.pos = i
	v, err := p.o.numberValue(s)
	return v, err == nil
}

// numberValue is a JSON number's value: int64, then what BigInt makes
// of a larger integer, else float64.
func (o *JSON) numberValue(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		if o.BigInt != nil {
			return o.BigInt(s)
		}
		if n, ok := new(big.Int).SetString(s, 10); ok {
			return n, nil
		}
	}
	return strconv.ParseFloat(s, 64)
}

// stringValue is a JSON string's value: with Constants, the marked
// strings of JSONConstants are NaN and ±Inf.
func (o *JSON) stringValue(x string) any {
	if !o.Constants || len(x) == 0 || x[0] != 0 {
		return x
	}
	switch x {
	case "\x00NaN":
		return math.NaN()
	case "\x00Infinity":
		return math.Inf(1)
	case "\x00-Infinity":
		return math.Inf(-1)
	}
	return x
}
