package jinja

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// refStr is the JSON string writer as it was, rune by rune.
func refStr(ascii bool, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case c < 0x20:
				b.WriteString(`\u` + hexN(int(c), 4))
			case ascii && c > 0x7e:
				if c > 0xffff {
					r1, r2 := utf16.EncodeRune(c)
					b.WriteString(`\u` + hexN(int(r1), 4) + `\u` + hexN(int(r2), 4))
				} else {
					b.WriteString(`\u` + hexN(int(c), 4))
				}
			default:
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

var jsonStrSeeds = []string{"", "plain", "a\"b\\c\n\r\t\b\f\x00\x1f\x7f", "é€😀", "\xff\xfe", "a\xedb", "\xed\xa0\x80", "x\u2028y", "tail\xc3"}

func checkJSONStr(t *testing.T, s string) {
	for _, ascii := range []bool{false, true} {
		var b strings.Builder
		(&jsonEnc{ascii: ascii}).str(&b, s)
		if want := refStr(ascii, s); b.String() != want {
			t.Fatalf("%q ascii=%v: %q, want %q", s, ascii, b.String(), want)
		}
	}
}

// TestJSONStrAsRunes: strings are written span by span as they were
// written rune by rune (escapes, ensure_ascii, invalid UTF-8 as U+FFFD).
func TestJSONStrAsRunes(t *testing.T) {
	for _, s := range jsonStrSeeds {
		checkJSONStr(t, s)
	}
}

func FuzzJSONStr(f *testing.F) {
	for _, s := range jsonStrSeeds {
		f.Add(s)
	}
	f.Fuzz(checkJSONStr)
}
