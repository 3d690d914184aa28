package replay

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// A line is validated and taken apart in one pass (scanLine): the
// grammar is gjson.ValidBytes's, bit for bit (TestScanLineMatchesGjson,
// FuzzScanLine), and while it walks the line it notes the members of the
// object at its top and whether each string value is valid UTF-8. A
// long response is so read once when the file is opened, where checking
// the JSON, finding the members and checking the UTF-8 read it three
// times.

// scanLine reports whether s is valid JSON as gjson.ValidBytes judges
// it. When it is and its value is an object, the object's members are
// appended to fs[:0] in order (keys decoded, values raw) and returned;
// otherwise none are. Keys and values share s's memory.
func scanLine(s string, fs fields) (fields, bool) {
	fs = fs[:0]
	sc := scanner{s: s, b: unsafe.Slice(unsafe.StringData(s), len(s))}
	i := skipSpace(s, 0)
	if i == len(s) {
		return fs, false
	}
	var ok bool
	if s[i] == '{' {
		fs, i, ok = sc.members(i+1, fs)
	} else {
		i, ok = sc.any(i)
	}
	if !ok || skipSpace(s, i) != len(s) {
		return fs[:0], false
	}
	return fs, true
}

// scanner walks one line.
type scanner struct {
	s string
	b []byte // s's bytes
	// valid8 is whether the last string scanned is valid UTF-8.
	valid8 bool
	// lone is set when a string scanned holds a \u escape of a UTF-16
	// surrogate that is not half of a pair (walkObject clears it before
	// each value of the line's own object).
	lone bool
}

// any scans the value at or after i (white space first).
func (sc *scanner) any(i int) (int, bool) {
	s := sc.s
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return sc.object(i + 1)
		case '[':
			return sc.array(i + 1)
		case '"':
			return sc.str(i + 1)
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return number(s, i+1)
		case 't':
			return word(s, i+1, "rue")
		case 'f':
			return word(s, i+1, "alse")
		case 'n':
			return word(s, i+1, "ull")
		default:
			return i, false
		}
	}
	return i, false
}

// object scans an object whose '{' is before i.
func (sc *scanner) object(i int) (int, bool) {
	_, i, ok := sc.walkObject(i, nil, false)
	return i, ok
}

// members scans the line's own object, whose '{' is before i, appending
// its members to fs.
func (sc *scanner) members(i int, fs fields) (fields, int, bool) {
	return sc.walkObject(i, fs, true)
}

// walkObject scans an object whose '{' is before i; with record, its
// members are appended to fs.
func (sc *scanner) walkObject(i int, fs fields, record bool) (fields, int, bool) {
	s := sc.s
	i = skipSpace(s, i)
	if i == len(s) {
		return fs, i, false
	}
	switch s[i] {
	case '}':
		return fs, i + 1, true
	case '"':
	default:
		return fs, i, false
	}
	for {
		kstart := i
		var ok bool
		if i, ok = sc.str(i + 1); !ok {
			return fs, i, false
		}
		kend := i
		if i, ok = colon(s, i); !ok {
			return fs, i, false
		}
		vstart := skipSpace(s, i)
		if record {
			sc.lone = false
		}
		if i, ok = sc.any(vstart); !ok {
			return fs, i, false
		}
		if record {
			f := field{key: view(s[kstart:kend]), val: value(s[vstart:i])}
			f.valid8 = s[vstart] != '"' || sc.valid8
			f.lone = sc.lone
			fs = append(fs, f)
		}
		if i, ok = comma(s, i, '}'); !ok {
			return fs, i, false
		}
		if s[i] == '}' {
			return fs, i + 1, true
		}
		i = skipSpace(s, i+1)
		if i == len(s) || s[i] != '"' {
			return fs, i, false
		}
	}
}

func (sc *scanner) array(i int) (int, bool) {
	s := sc.s
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ']':
			return i + 1, true
		}
		for ; i < len(s); i++ {
			var ok bool
			if i, ok = sc.any(i); !ok {
				return i, false
			}
			if i, ok = comma(s, i, ']'); !ok {
				return i, false
			}
			if s[i] == ']' {
				return i + 1, true
			}
		}
		return i, false
	}
	return i, false
}

func colon(s string, i int) (int, bool) {
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return i + 1, true
		default:
			return i, false
		}
	}
	return i, false
}

// comma finds the ',' or end byte after a value (its index).
func comma(s string, i int, end byte) (int, bool) {
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ',', end:
			return i, true
		default:
			return i, false
		}
	}
	return i, false
}

// Bytes a string's fast path must stop at, eight at a time.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special marks, with its high bit, each of the eight bytes of x (the
// first in memory lowest) that is a control byte (< 0x20), '"', '\\' or
// outside ASCII; a marked byte may follow an unmarked one only if it is
// one of those: the lowest mark is exactly the first such byte.
func special(x uint64) uint64 {
	less := (x - 0x20*ones) &^ x    // below 0x20 (or a borrow from one)
	quote := x ^ 0x22*ones          // zero where '"'
	bslash := x ^ 0x5c*ones         // zero where '\\'
	zq := (quote - ones) &^ quote   // marks quote's zero bytes
	zb := (bslash - ones) &^ bslash // likewise for '\\'
	return (x | less | zq | zb) & highs
}

// str scans a string whose opening quote is before i and returns the
// index after its closing quote; sc.valid8 is set to whether its bytes
// are valid UTF-8. A byte gjson accepts in a string is accepted here:
// any but a control byte, and a backslash only before a valid escape.
func (sc *scanner) str(i int) (int, bool) {
	s, b := sc.s, sc.b
	valid8 := true
	for {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			return i, false
		}
		switch c := s[i]; {
		case c < ' ':
			return i, false
		case c == '"':
			sc.valid8 = valid8
			return i + 1, true
		case c == '\\':
			i++
			if i == len(s) {
				return i, false
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for range 4 {
					i++
					if i >= len(s) || !isHex(s[i]) {
						return i, false
					}
				}
				i++
				if h := s[i-4]; h == 'd' || h == 'D' {
					switch s[i-3] {
					case '8', '9', 'a', 'b', 'A', 'B':
						// A high surrogate is half of a pair when a low
						// one's escape follows at once (decoding then
						// makes one character of the two); that escape is
						// taken here.
						if lowEscape(s, i) {
							i += 6
						} else {
							sc.lone = true
						}
					case 'c', 'd', 'e', 'f', 'C', 'D', 'E', 'F':
						sc.lone = true // a low surrogate without its high one
					}
				}
			default:
				return i, false
			}
		case c < utf8.RuneSelf:
			i++
		default:
			// A multi-byte sequence has no byte below 0x80, so skipping
			// it skips nothing gjson would stop at.
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				valid8 = false
			}
			i += size
		}
	}
}

// lowEscape reports whether s holds the \u escape of a low surrogate
// (U+DC00 to U+DFFF) at i.
func lowEscape(s string, i int) bool {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' || (s[i+2] != 'd' && s[i+2] != 'D') {
		return false
	}
	switch s[i+3] {
	case 'c', 'd', 'e', 'f', 'C', 'D', 'E', 'F':
		return isHex(s[i+4]) && isHex(s[i+5])
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// word matches the rest of true, false or null.
func word(s string, i int, rest string) (int, bool) {
	if i+len(rest) <= len(s) && s[i:i+len(rest)] == rest {
		return i + len(rest), true
	}
	return i, false
}

// number scans a number whose first byte is before i, as gjson does (a
// leading zero ends the integer part; what follows is the caller's).
func number(s string, i int) (int, bool) {
	i--
	if s[i] == '-' {
		i++
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
	}
	if s[i] == '0' {
		i++
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i == len(s) {
		return i, true
	}
	if s[i] == '.' {
		i++
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i == len(s) {
		return i, true
	}
	if s[i] == 'e' || s[i] == 'E' {
		i++
		if i == len(s) {
			return i, false
		}
		if s[i] == '+' || s[i] == '-' {
			i++
		}
		if i == len(s) || s[i] < '0' || s[i] > '9' {
			return i, false
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	return i, true
}
