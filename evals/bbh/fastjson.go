package bbh

import (
	"strconv"

	"github.com/pocketeval/pocketeval/evals"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// fastExamples reads a task file's examples for the common form, where
// encoding/json (what readTask's fallback decodes with) would give the
// same strings: one object, its "examples" an array of objects, each with
// one "input" and one "target" string; other members (the canary) hold
// strings, arrays and objects only; the file valid UTF-8; no key that is
// not spelled exactly as the fields but matches one ignoring case (which
// encoding/json would take), no field twice, no surrogate escape (\uD800
// to \uDFFF). Anything else — a syntax error too — is ok == false, and
// the file is decoded by encoding/json, so samples and errors are always
// its own. The strings are cut from one block of the decoded text.
func fastExamples(raw []byte) (inputs, targets []string, ok bool) {
	if !utf8.Valid(raw) {
		return nil, nil, false
	}
	s := &jscan{b: raw, arena: make([]byte, 0, len(raw))}
	s.ws()
	if !s.eat('{') {
		return nil, nil, false
	}
	seen := false
	for first := true; ; first = false {
		s.ws()
		if first && s.eat('}') {
			break
		}
		key, ok := s.key()
		if !ok {
			return nil, nil, false
		}
		s.ws()
		switch {
		case key == "examples":
			if seen {
				return nil, nil, false
			}
			seen = true
			if inputs, targets, ok = s.examples(); !ok {
				return nil, nil, false
			}
		case folds(key, "examples"):
			return nil, nil, false
		default:
			if !s.skip(0) {
				return nil, nil, false
			}
		}
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat('}') {
			break
		}
		return nil, nil, false
	}
	s.ws()
	if s.i != len(s.b) || !seen {
		return nil, nil, false
	}
	// The strings were made over the block as it grew within its
	// capacity: it was never moved.
	return inputs, targets, true
}

// folds says whether the ASCII key would be taken for name by
// encoding/json (equal ignoring ASCII case) without being name. A key
// with other bytes is treated as one that might (ſ and K fold to s and k).
func folds(key, name string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	return strings.EqualFold(key, name)
}

// jscan reads JSON from b at i, writing decoded strings into arena.
type jscan struct {
	b     []byte
	i     int
	arena []byte
}

func (s *jscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jscan) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// key reads a member's key without escapes and the colon after it.
func (s *jscan) key() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			k := unsafe.String(unsafe.SliceData(s.b[start:]), s.i-start)
			s.i++
			s.ws()
			return k, s.eat(':')
		}
		if c == '\\' || c < 0x20 {
			return "", false
		}
		s.i++
	}
	return "", false
}

// examples reads the examples array.
func (s *jscan) examples() (inputs, targets []string, ok bool) {
	s.ws()
	if !s.eat('[') {
		return nil, nil, false
	}
	for first := true; ; first = false {
		s.ws()
		if first && s.eat(']') {
			return inputs, targets, true
		}
		if !s.eat('{') {
			return nil, nil, false
		}
		var in, tg string
		var hasIn, hasTg bool
		for firstKey := true; ; firstKey = false {
			s.ws()
			if firstKey && s.eat('}') {
				break
			}
			key, ok := s.key()
			if !ok {
				return nil, nil, false
			}
			s.ws()
			switch {
			case key == "input" && !hasIn:
				in, hasIn = s.str()
				if !hasIn {
					return nil, nil, false
				}
			case key == "target" && !hasTg:
				tg, hasTg = s.str()
				if !hasTg {
					return nil, nil, false
				}
			case folds(key, "input"), folds(key, "target"):
				return nil, nil, false
			default:
				if !s.skip(0) {
					return nil, nil, false
				}
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return nil, nil, false
		}
		if !hasIn || !hasTg {
			return nil, nil, false
		}
		inputs = append(inputs, in)
		targets = append(targets, tg)
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			return inputs, targets, true
		}
		return nil, nil, false
	}
}

// str decodes a string value into the arena.
func (s *jscan) str() (string, bool) {
	if !s.eat('"') {
		return "", false
	}
	start := len(s.arena)
	for {
		j := s.i
		for j < len(s.b) && s.b[j] != '"' && s.b[j] != '\\' && s.b[j] >= 0x20 {
			j++
		}
		s.arena = append(s.arena, s.b[s.i:j]...)
		s.i = j
		if j == len(s.b) || s.b[j] < 0x20 {
			return "", false
		}
		if s.b[j] == '"' {
			s.i++
			if len(s.arena) == start {
				return "", true
			}
			return unsafe.String(&s.arena[start], len(s.arena)-start), true
		}
		// An escape.
		if j+1 >= len(s.b) {
			return "", false
		}
		c := s.b[j+1]
		s.i = j + 2
		switch c {
		case '"', '\\', '/':
			s.arena = append(s.arena, c)
		case 'b':
			s.arena = append(s.arena, '\b')
		case 'f':
			s.arena = append(s.arena, '\f')
		case 'n':
			s.arena = append(s.arena, '\n')
		case 'r':
			s.arena = append(s.arena, '\r')
		case 't':
			s.arena = append(s.arena, '\t')
		case 'u':
			r, ok := hex4(s.b[s.i:])
			if !ok || (r >= 0xD800 && r <= 0xDFFF) {
				return "", false
			}
			s.i += 4
			s.arena = utf8.AppendRune(s.arena, r)
		default:
			return "", false
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skip passes over a string, array or object (validated as JSON; keys
// anything); numbers, true, false and null, which the task files do not
// have, are left to encoding/json. depth bounds the nesting.
func (s *jscan) skip(depth int) bool {
	if depth > 100 || s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		mark := len(s.arena)
		_, ok := s.str()
		s.arena = s.arena[:mark]
		return ok
	case '[':
		s.i++
		for first := true; ; first = false {
			s.ws()
			if first && s.eat(']') {
				return true
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			return s.eat(']')
		}
	case '{':
		s.i++
		for first := true; ; first = false {
			s.ws()
			if first && s.eat('}') {
				return true
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return false
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if !s.eat(':') {
				return false
			}
			s.ws()
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			return s.eat('}')
		}
	}
	return false
}

// setIDs names sample i of a task file name/i, the names cut from one
// string.
func setIDs(out []evals.Sample, name string) {
	var b strings.Builder
	b.Grow(len(out) * (len(name) + 5))
	ends := make([]int, len(out))
	var num [20]byte
	for i := range out {
		b.WriteString(name)
		b.WriteByte('/')
		b.Write(strconv.AppendInt(num[:0], int64(i), 10))
		ends[i] = b.Len()
	}
	all, at := b.String(), 0
	for i := range out {
		out[i].ID = all[at:ends[i]]
		at = ends[i]
	}
}
