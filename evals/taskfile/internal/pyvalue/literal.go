package pyvalue

import (
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// ParseLiteral evaluates a Python literal as ast.literal_eval does for the
// forms task files produce: str (quotes ' " ”' """, prefixes r and u,
// escapes, adjacent literals concatenated), int (decimal, 0x, 0o, 0b,
// underscores), float, True, False, None, list, tuple and dict, with unary
// signs on numbers. Bytes, sets, complex numbers and integers beyond 64
// bits are refused. Tuples are returned as lists.
func ParseLiteral(s string) (Value, error) {
	p := &litParser{src: s}
	p.skipSpace(false)
	v, err := p.value(false)
	if err != nil {
		return Undefined(), fmt.Errorf("literal_eval %s: %w", pyval.StringRepr(short(s)), err)
	}
	p.skipSpace(false)
	if p.pos < len(p.src) {
		return Undefined(), fmt.Errorf("literal_eval %s: unexpected %q at offset %d", pyval.StringRepr(short(s)), p.src[p.pos:min(len(p.src), p.pos+10)], p.pos)
	}
	return v, nil
}

func short(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

type litParser struct {
	src string
	pos int
}

// skipSpace skips blanks; inside brackets newlines and comments are blank
// too (implicit line joining).
func (p *litParser) skipSpace(nested bool) {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			p.pos++
		case nested && (c == '\n' || c == '\r'):
			p.pos++
		case c == '\\' && strings.HasPrefix(p.src[p.pos:], "\\\n"):
			p.pos += 2
		case nested && c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *litParser) value(nested bool) (Value, error) {
	if p.pos >= len(p.src) {
		return Undefined(), fmt.Errorf("unexpected end of input")
	}
	c := p.src[p.pos]
	switch {
	case c == '[':
		p.pos++
		items, err := p.sequence(']')
		if err != nil {
			return Undefined(), err
		}
		return NewList(items), nil
	case c == '(':
		p.pos++
		p.skipSpace(true)
		if p.peek() == ')' {
			p.pos++
			return NewList(nil), nil
		}
		first, err := p.value(true)
		if err != nil {
			return Undefined(), err
		}
		p.skipSpace(true)
		if p.peek() == ')' { // a parenthesised value, not a tuple
			p.pos++
			return first, nil
		}
		if p.peek() != ',' {
			return Undefined(), fmt.Errorf("expected ',' or ')' at offset %d", p.pos)
		}
		p.pos++
		rest, err := p.sequence(')')
		if err != nil {
			return Undefined(), err
		}
		return NewList(append([]Value{first}, rest...)), nil
	case c == '{':
		p.pos++
		return p.dict()
	case c == '\'' || c == '"':
		return p.strings(nested)
	case c == '+' || c == '-':
		p.pos++
		p.skipSpace(nested)
		v, err := p.value(nested)
		if err != nil {
			return Undefined(), err
		}
		if c == '+' {
			if v.IsInt() || v.IsFloat() {
				return v, nil
			}
			return Undefined(), fmt.Errorf("unary + on a non-number")
		}
		switch {
		case v.IsInt():
			return NewInt(-v.AsInt()), nil
		case v.IsFloat():
			return NewFloat(-v.AsFloat()), nil
		}
		return Undefined(), fmt.Errorf("unary - on a non-number")
	case c >= '0' && c <= '9' || c == '.':
		return p.number()
	case isIdentStart(c):
		start := p.pos
		for p.pos < len(p.src) && isIdentPart(p.src[p.pos]) {
			p.pos++
		}
		word := p.src[start:p.pos]
		switch word {
		case "True":
			return NewBool(true), nil
		case "False":
			return NewBool(false), nil
		case "None":
			return None(), nil
		}
		// String prefixes: r, u, R, U (b and f are not literals here).
		if p.peek() == '\'' || p.peek() == '"' {
			p.pos = start
			return p.strings(nested)
		}
		return Undefined(), fmt.Errorf("%q is not a literal", word)
	}
	return Undefined(), fmt.Errorf("unexpected %q at offset %d", c, p.pos)
}

func (p *litParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// sequence reads comma-separated values up to closer (trailing comma
// allowed); the opener is already consumed.
func (p *litParser) sequence(closer byte) ([]Value, error) {
	var items []Value
	for {
		p.skipSpace(true)
		if p.peek() == closer {
			p.pos++
			return items, nil
		}
		v, err := p.value(true)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		p.skipSpace(true)
		switch p.peek() {
		case ',':
			p.pos++
		case closer:
			p.pos++
			return items, nil
		default:
			return nil, fmt.Errorf("expected ',' or %q at offset %d", closer, p.pos)
		}
	}
}

func (p *litParser) dict() (Value, error) {
	d := NewDict()
	for {
		p.skipSpace(true)
		if p.peek() == '}' {
			p.pos++
			return d, nil
		}
		k, err := p.value(true)
		if err != nil {
			return Undefined(), err
		}
		p.skipSpace(true)
		if p.peek() != ':' {
			return Undefined(), fmt.Errorf("expected ':' at offset %d (sets are not supported)", p.pos)
		}
		p.pos++
		p.skipSpace(true)
		v, err := p.value(true)
		if err != nil {
			return Undefined(), err
		}
		d.AsDict().Set(Str(k), v)
		p.skipSpace(true)
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return d, nil
		default:
			return Undefined(), fmt.Errorf("expected ',' or '}' at offset %d", p.pos)
		}
	}
}

// strings reads one or more adjacent string literals and concatenates them.
func (p *litParser) strings(nested bool) (Value, error) {
	var b strings.Builder
	n := 0
	for {
		start := p.pos
		raw := false
		for p.pos < len(p.src) && isIdentStart(p.src[p.pos]) {
			switch p.src[p.pos] {
			case 'r', 'R':
				raw = true
			case 'u', 'U':
			default:
				return Undefined(), fmt.Errorf("string prefix %q is not supported", p.src[start:p.pos+1])
			}
			p.pos++
		}
		if q := p.peek(); q != '\'' && q != '"' {
			if n == 0 {
				return Undefined(), fmt.Errorf("expected a string at offset %d", start)
			}
			p.pos = start
			return NewString(b.String()), nil
		}
		if err := p.stringLit(&b, raw); err != nil {
			return Undefined(), err
		}
		n++
		p.skipSpace(nested)
		if c := p.peek(); c != '\'' && c != '"' && !(isIdentStart(c) && p.prefixedString()) {
			return NewString(b.String()), nil
		}
	}
}

// prefixedString reports whether a string prefix followed by a quote
// starts at pos.
func (p *litParser) prefixedString() bool {
	i := p.pos
	for i < len(p.src) && i-p.pos < 2 && strings.IndexByte("rRuU", p.src[i]) >= 0 {
		i++
	}
	return i > p.pos && i < len(p.src) && (p.src[i] == '\'' || p.src[i] == '"')
}

// stringLit reads one string literal (its prefix read into raw), decoded
// by pyval.Unquote, and appends its value to b.
func (p *litParser) stringLit(b *strings.Builder, raw bool) error {
	s, n, err := pyval.Unquote(p.src[p.pos:], pyval.Quote{Raw: raw, Triple: true})
	if err != nil {
		return fmt.Errorf("%w at offset %d", err, p.pos)
	}
	b.WriteString(s)
	p.pos += n
	return nil
}

func (p *litParser) number() (Value, error) {
	v, n, err := pyval.Number(p.src[p.pos:])
	if err != nil {
		return Undefined(), fmt.Errorf("%w at offset %d", err, p.pos)
	}
	tok := p.src[p.pos : p.pos+n]
	p.pos += n
	switch x := v.(type) {
	case int64:
		return NewInt(x), nil
	case float64:
		return NewFloat(x), nil
	case complex128:
		return Undefined(), fmt.Errorf("complex number %q is not supported", tok)
	}
	return Undefined(), fmt.Errorf("integer %q is beyond 64 bits", tok)
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
