package pyval

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Quote says how a grammar writes a string literal.
type Quote struct {
	// Raw is the r prefix: a backslash stays, and only keeps the next
	// character from ending the literal.
	Raw bool
	// Bytes is the b prefix: only ASCII characters; \u, \U and \N are
	// not escapes; octal and \x escapes are bytes.
	Bytes bool
	// Triple lets ''' and """ open a triple-quoted literal (Python's
	// grammar; jinja2's has none).
	Triple bool
	// Newlines lets a single-quoted literal hold a line break (jinja2's
	// grammar; in Python only a triple-quoted literal may).
	Newlines bool
}

// Unquote reads the string literal whose opening quote is s[0] (its
// prefix already read into q) and returns its value and the number of
// bytes of s it spans. Escapes are Python's: \\ \' \" \a \b \f \n \r \t \v,
// a backslash before a line break (nothing), octal \ooo, \xhh, \uhhhh,
// \Uhhhhhhhh and \N{name}; an unknown escape keeps its backslash.
func Unquote(s string, q Quote) (string, int, error) {
	delim := s[:1]
	if q.Triple && strings.HasPrefix(s, delim+delim+delim) {
		delim += delim + delim
	}
	i := len(delim)
	var b strings.Builder
	for {
		if i >= len(s) {
			return "", 0, fmt.Errorf("unterminated string literal")
		}
		if strings.HasPrefix(s[i:], delim) {
			return b.String(), i + len(delim), nil
		}
		c := s[i]
		if (c == '\n' || c == '\r') && len(delim) == 1 && !q.Newlines {
			return "", 0, fmt.Errorf("unterminated string literal")
		}
		if q.Bytes && c >= 0x80 {
			return "", 0, fmt.Errorf("bytes can only contain ASCII literal characters")
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", 0, fmt.Errorf("unterminated string literal")
		}
		if q.Raw {
			b.WriteByte('\\')
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i - 1
			k := j
			for k < len(s) && k < j+3 && s[k] >= '0' && s[k] <= '7' {
				k++
			}
			n, _ := strconv.ParseUint(s[j:k], 8, 32)
			if q.Bytes {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = k
		case 'x', 'u', 'U':
			w := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if q.Bytes && e != 'x' {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			if i+w > len(s) {
				return "", 0, fmt.Errorf("truncated \\%c escape", e)
			}
			n, err := strconv.ParseUint(s[i:i+w], 16, 32)
			if err != nil {
				return "", 0, fmt.Errorf("truncated \\%c escape", e)
			}
			if n > unicode.MaxRune {
				return "", 0, fmt.Errorf("illegal Unicode character in \\%c escape", e)
			}
			if q.Bytes {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i += w
		case 'N':
			if q.Bytes {
				b.WriteString(`\N`)
				continue
			}
			end := strings.IndexByte(s[i:], '}')
			if i >= len(s) || s[i] != '{' || end < 0 || (!q.Newlines && strings.ContainsAny(s[i:i+end], "\n\r")) {
				return "", 0, fmt.Errorf("malformed \\N character escape")
			}
			r, ok := Lookup(s[i+1 : i+end])
			if !ok {
				return "", 0, fmt.Errorf("unknown Unicode character name %q", s[i+1:i+end])
			}
			b.WriteRune(r)
			i += end + 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
}

// Number reads the number literal at the start of s as Python's
// tokenizer does and returns its value (int64, *big.Int for an integer
// beyond 64 bits, float64 or complex128) and the bytes it spans.
// Underscores may separate digits; 0x, 0o and 0b prefix integers; a j
// suffix makes an imaginary number.
func Number(s string) (any, int, error) {
	i := 0
	digits := func(ok func(byte) bool) {
		for i < len(s) && (ok(s[i]) || s[i] == '_' && i+1 < len(s) && ok(s[i+1])) {
			i++
		}
	}
	dec := func(b byte) bool { return b >= '0' && b <= '9' }
	if len(s) > 1 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'O': 8, 'b': 2, 'B': 2}[s[1]]
		i = 2
		if i < len(s) && s[i] == '_' {
			i++
		}
		start := i
		digits(func(b byte) bool {
			d := strings.IndexByte("0123456789abcdef", byte(unicode.ToLower(rune(b))))
			return d >= 0 && d < base
		})
		if i == start {
			return nil, 0, fmt.Errorf("invalid number literal")
		}
		if i < len(s) && (unicode.IsLetter(rune(s[i])) || dec(s[i])) {
			return nil, 0, fmt.Errorf("invalid number literal")
		}
		n, _ := new(big.Int).SetString(strings.ReplaceAll(s[start:i], "_", ""), base)
		return Int(n), i, nil
	}
	digits(dec)
	isFloat := false
	if i < len(s) && s[i] == '.' {
		isFloat = true
		i++
		digits(dec)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && dec(s[j]) {
			isFloat = true
			i = j
			digits(dec)
		} else {
			return nil, 0, fmt.Errorf("invalid decimal literal")
		}
	}
	lit := strings.ReplaceAll(s[:i], "_", "")
	if i < len(s) && (s[i] == 'j' || s[i] == 'J') {
		f, err := parseFloat(lit)
		if err != nil {
			return nil, 0, err
		}
		return complex(0, f), i + 1, nil
	}
	if i < len(s) && (unicode.IsLetter(rune(s[i])) || s[i] == '_') {
		return nil, 0, fmt.Errorf("invalid decimal literal")
	}
	if isFloat {
		f, err := parseFloat(lit)
		if err != nil {
			return nil, 0, err
		}
		return f, i, nil
	}
	if len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
		return nil, 0, fmt.Errorf("leading zeros in decimal integer literals are not permitted")
	}
	n, ok := new(big.Int).SetString(lit, 10)
	if !ok {
		return nil, 0, fmt.Errorf("invalid decimal literal")
	}
	return Int(n), i, nil
}

// parseFloat is float() of a literal: past the largest float it is inf.
func parseFloat(lit string) (float64, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, err
	}
	return f, nil
}

// Int returns n as an int64 when it fits, else n itself.
func Int(n *big.Int) any {
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}
