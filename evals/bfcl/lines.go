package bfcl

import (
	"context"
	"strings"
	"unicode/utf8"
)

// eachLine calls f with every non-blank line of data (trimmed) and its
// number. ReadDataFile bounds a line (MaxLineBytes), so every line fits.
func eachLine(ctx context.Context, data string, f func(line int, raw string) error) error {
	for line := 1; len(data) > 0; line++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := strings.IndexByte(data, '\n')
		if n < 0 {
			n = len(data)
		}
		raw := strings.TrimSpace(data[:n])
		data = data[min(n+1, len(data)):]
		if len(raw) == 0 {
			continue
		}
		if err := f(line, raw); err != nil {
			return err
		}
	}
	return nil
}

// topFields finds the values of the named fields of the JSON object line
// as json.Unmarshal into a struct of json.RawMessage fields would find
// them, checking that line is valid JSON on the way: vals[i] is the raw
// value of names[i] ("" when absent). ok is false when line is not such
// an object or has what this reading leaves to json.Unmarshal (a key with
// an escape or not ASCII, a key json.Unmarshal would match to a name
// without case, a name twice, a null value); the caller then decodes it
// with json.Unmarshal.
func topFields(line string, names []string, vals []string) (ok bool) {
	clear(vals)
	s := jsonSkip{data: line}
	s.space()
	if !s.byte('{') {
		return false
	}
	s.space()
	if s.byte('}') {
		s.space()
		return s.pos == len(s.data)
	}
	for {
		s.space()
		ks := s.pos
		if !s.str() {
			return false
		}
		key := line[ks+1 : s.pos-1]
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		vs := s.pos
		if !s.value(0) {
			return false
		}
		for i, n := range names {
			if key == n {
				if vals[i] != "" || line[vs:s.pos] == "null" {
					return false
				}
				vals[i] = line[vs:s.pos]
			} else if strings.EqualFold(key, n) {
				return false
			}
		}
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return false
			}
		}
		s.space()
		if s.byte('}') {
			s.space()
			return s.pos == len(s.data)
		}
		if !s.byte(',') {
			return false
		}
	}
}

// plainString returns the text of a JSON string literal (of valid JSON)
// without escapes, of valid UTF-8, as encoding/json reads it (a part of
// lit), or false.
func plainString(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	if strings.IndexByte(body, '\\') >= 0 || !utf8.ValidString(body) {
		return "", false
	}
	return body, true
}

// jsonSkip moves over JSON values, accepting only valid JSON.
type jsonSkip struct {
	data string
	pos  int
}

// maxSkipDepth bounds the nesting jsonSkip follows (deeper is left to
// json.Unmarshal, whose own bound is 10,000).
const maxSkipDepth = 1000

func (s *jsonSkip) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonSkip) byte(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

func (s *jsonSkip) value(depth int) bool {
	if s.pos >= len(s.data) || depth > maxSkipDepth {
		return false
	}
	switch c := s.data[s.pos]; c {
	case '"':
		return s.str()
	case '{', '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		s.pos++
		s.space()
		if s.byte(end) {
			return true
		}
		for {
			s.space()
			if c == '{' {
				if !s.str() {
					return false
				}
				s.space()
				if !s.byte(':') {
					return false
				}
				s.space()
			}
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte(end) {
				return true
			}
			if !s.byte(',') {
				return false
			}
		}
	case 't':
		return s.word("true")
	case 'f':
		return s.word("false")
	case 'n':
		return s.word("null")
	}
	return s.number()
}

func (s *jsonSkip) word(w string) bool {
	if !strings.HasPrefix(s.data[s.pos:], w) {
		return false
	}
	s.pos += len(w)
	return true
}

func (s *jsonSkip) str() bool {
	if !s.byte('"') {
		return false
	}
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.pos++
			return true
		case c == '\\':
			if s.pos+1 >= len(s.data) {
				return false
			}
			switch s.data[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.data) {
					return false
				}
				for _, h := range s.data[s.pos+2 : s.pos+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				s.pos += 6
			default:
				return false
			}
		case c < ' ':
			return false
		default:
			s.pos++
		}
	}
	return false
}

// number moves over -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *jsonSkip) number() bool {
	digits := func() bool {
		start := s.pos
		for s.pos < len(s.data) && '0' <= s.data[s.pos] && s.data[s.pos] <= '9' {
			s.pos++
		}
		return s.pos > start
	}
	s.byte('-')
	if !s.byte('0') && !digits() {
		return false
	}
	if s.byte('.') && !digits() {
		return false
	}
	if s.byte('e') || s.byte('E') {
		if !s.byte('+') {
			s.byte('-')
		}
		if !digits() {
			return false
		}
	}
	return true
}
