package pyvalue

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseLiteral evaluates a Python literal as ast.literal_eval does for the
// forms task files produce: str (quotes ' " ”' """, prefixes r and u,
// escapes, adjacent literals concatenated), int (decimal, 0x, 0o, 0b,
// underscores), float, True, False, None, list, tuple and dict, with unary
// signs on numbers. Bytes, sets, complex numbers and \N{...} escapes are
// refused. Tuples are returned as lists.
func ParseLiteral(s string) (Value, error) {
	p := &litParser{src: s}
	p.skipSpace(false)
	v, err := p.value(false)
	if err != nil {
		return Undefined(), fmt.Errorf("literal_eval %s: %w", StringRepr(short(s)), err)
	}
	p.skipSpace(false)
	if p.pos < len(p.src) {
		return Undefined(), fmt.Errorf("literal_eval %s: unexpected %q at offset %d", StringRepr(short(s)), p.src[p.pos:min(len(p.src), p.pos+10)], p.pos)
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
		if err := p.oneString(&b, raw); err != nil {
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

func (p *litParser) oneString(b *strings.Builder, raw bool) error {
	q := p.src[p.pos]
	delim := string(q)
	if strings.HasPrefix(p.src[p.pos:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	p.pos += len(delim)
	for {
		if p.pos >= len(p.src) {
			return fmt.Errorf("unterminated string")
		}
		if strings.HasPrefix(p.src[p.pos:], delim) {
			p.pos += len(delim)
			return nil
		}
		c := p.src[p.pos]
		if c == '\n' && len(delim) == 1 {
			return fmt.Errorf("newline in a single-quoted string at offset %d", p.pos)
		}
		if c != '\\' {
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			b.WriteRune(r)
			p.pos += size
			continue
		}
		if p.pos+1 >= len(p.src) {
			return fmt.Errorf("unterminated string")
		}
		e := p.src[p.pos+1]
		if raw {
			// A raw string keeps the backslash; it only stops the quote
			// from ending the string.
			b.WriteByte('\\')
			r, size := utf8.DecodeRuneInString(p.src[p.pos+1:])
			b.WriteRune(r)
			p.pos += 1 + size
			continue
		}
		p.pos += 2
		switch e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.pos+width > len(p.src) {
				return fmt.Errorf("truncated \\%c escape", e)
			}
			n, err := strconv.ParseUint(p.src[p.pos:p.pos+width], 16, 32)
			if err != nil || n > utf8.MaxRune {
				return fmt.Errorf("bad \\%c escape %q", e, p.src[p.pos:p.pos+width])
			}
			b.WriteRune(rune(n))
			p.pos += width
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := p.pos - 1
			end := j
			for end < len(p.src) && end < j+3 && p.src[end] >= '0' && p.src[end] <= '7' {
				end++
			}
			n, _ := strconv.ParseUint(p.src[j:end], 8, 32)
			b.WriteRune(rune(n))
			p.pos = end
		case 'N':
			return fmt.Errorf(`\N{...} escapes are not supported`)
		default:
			// Unknown escapes keep the backslash, as Python does.
			b.WriteByte('\\')
			p.pos--
		}
	}
}

func (p *litParser) number() (Value, error) {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if isIdentPart(c) || c == '.' {
			p.pos++
			continue
		}
		if (c == '+' || c == '-') && p.pos > start && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E') && !isPrefixedInt(p.src[start:p.pos]) {
			p.pos++
			continue
		}
		break
	}
	tok := p.src[start:p.pos]
	clean := strings.ReplaceAll(tok, "_", "")
	if strings.HasPrefix(tok, "_") || strings.HasSuffix(tok, "_") || strings.Contains(tok, "__") {
		return Undefined(), fmt.Errorf("invalid number %q", tok)
	}
	if isPrefixedInt(clean) {
		n, ok := new(big.Int).SetString(clean[2:], map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[clean[1]])
		if !ok || !n.IsInt64() {
			return Undefined(), fmt.Errorf("invalid or too large integer %q", tok)
		}
		return NewInt(n.Int64()), nil
	}
	if strings.ContainsAny(clean, ".eE") {
		f, err := strconv.ParseFloat(clean, 64)
		if err != nil {
			return Undefined(), fmt.Errorf("invalid number %q", tok)
		}
		return NewFloat(f), nil
	}
	if len(clean) > 1 && clean[0] == '0' && strings.Trim(clean, "0") != "" {
		return Undefined(), fmt.Errorf("leading zeros in decimal integer literals are not permitted: %q", tok)
	}
	n, err := strconv.ParseInt(clean, 10, 64)
	if err != nil {
		return Undefined(), fmt.Errorf("invalid or too large integer %q", tok)
	}
	return NewInt(n), nil
}

func isPrefixedInt(s string) bool {
	return len(s) > 2 && s[0] == '0' && strings.IndexByte("xXoObB", s[1]) >= 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
