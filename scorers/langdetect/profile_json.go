package langdetect

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// parseProfile reads a langdetect profile, the JSON object
// {"freq": {gram: count, ...}, "n_words": [n1, n2, n3], "name": code},
// calling gram for every entry of freq without building a map (key is
// only valid during the call): loading the 55 profiles is then several
// times faster than with encoding/json.
// TestParseProfileMatchesEncodingJSON checks it on every embedded profile.
func parseProfile(data []byte, gram func(key []byte, count int64)) (name string, nWords []int64, err error) {
	p := &jsonScanner{data: data}
	err = p.object(func(field []byte) error {
		switch string(field) {
		case "freq":
			return p.object(func(key []byte) error {
				v, err := p.integer()
				if err != nil {
					return err
				}
				gram(key, v)
				return nil
			})
		case "n_words":
			return p.array(func() error {
				v, err := p.integer()
				nWords = append(nWords, v)
				return err
			})
		case "name":
			b, err := p.str()
			name = string(b)
			return err
		}
		return fmt.Errorf("unexpected field %q", field)
	})
	if err == nil {
		p.space()
		if p.pos != len(p.data) {
			err = errors.New("data after the object")
		}
	}
	if err != nil {
		return "", nil, fmt.Errorf("byte %d: %w", p.pos, err)
	}
	return name, nWords, nil
}

type jsonScanner struct {
	data []byte
	pos  int
	buf  []byte
}

func (p *jsonScanner) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonScanner) expect(c byte) error {
	p.space()
	if p.pos >= len(p.data) || p.data[p.pos] != c {
		return fmt.Errorf("want %q", c)
	}
	p.pos++
	return nil
}

func (p *jsonScanner) peek() byte {
	p.space()
	if p.pos >= len(p.data) {
		return 0
	}
	return p.data[p.pos]
}

// object reads {"key": value, ...}, calling member after each key and
// colon to read the value.
func (p *jsonScanner) object(member func(key []byte) error) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	if p.peek() == '}' {
		p.pos++
		return nil
	}
	for {
		key, err := p.str()
		if err != nil {
			return err
		}
		if err := p.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return errors.New("want ',' or '}'")
		}
	}
}

func (p *jsonScanner) array(elem func() error) error {
	if err := p.expect('['); err != nil {
		return err
	}
	if p.peek() == ']' {
		p.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return errors.New("want ',' or ']'")
		}
	}
}

func (p *jsonScanner) integer() (int64, error) {
	p.space()
	start := p.pos
	if p.pos < len(p.data) && p.data[p.pos] == '-' {
		p.pos++
	}
	for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
		p.pos++
	}
	return strconv.ParseInt(string(p.data[start:p.pos]), 10, 64)
}

// str reads a JSON string with all of JSON's escapes. The result is valid
// until the next call.
func (p *jsonScanner) str() ([]byte, error) {
	if err := p.expect('"'); err != nil {
		return nil, err
	}
	p.buf = p.buf[:0]
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return p.buf, nil
		case c < 0x20:
			return nil, errors.New("control character in string")
		case c != '\\':
			p.buf = append(p.buf, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			break
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			p.buf = append(p.buf, e)
		case 'b':
			p.buf = append(p.buf, '\b')
		case 'f':
			p.buf = append(p.buf, '\f')
		case 'n':
			p.buf = append(p.buf, '\n')
		case 'r':
			p.buf = append(p.buf, '\r')
		case 't':
			p.buf = append(p.buf, '\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return nil, err
			}
			if utf16.IsSurrogate(r) {
				r = p.lowSurrogate(r)
			}
			p.buf = utf8.AppendRune(p.buf, r)
		default:
			return nil, fmt.Errorf("bad escape \\%c", e)
		}
	}
	return nil, errors.New("unterminated string")
}

// lowSurrogate completes the UTF-16 pair that the surrogate hi starts; a
// lone surrogate becomes U+FFFD, as encoding/json decodes it.
func (p *jsonScanner) lowSurrogate(hi rune) rune {
	if p.pos+6 <= len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		if lo, err := p.hex4(); err == nil {
			if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
				return r
			}
		}
		p.pos = save
	}
	return utf8.RuneError
}

func (p *jsonScanner) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, errors.New("short \\u escape")
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
	if err != nil {
		return 0, fmt.Errorf("bad \\u escape: %w", err)
	}
	p.pos += 4
	return rune(v), nil
}
