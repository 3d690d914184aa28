package replay

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// checkScan compares scanLine on line with gjson.ValidBytes and, for an
// object, with the members members finds and utf8.ValidString.
func checkScan(t *testing.T, line []byte) {
	t.Helper()
	s := unsafe.String(unsafe.SliceData(line), len(line))
	got, ok := scanLine(s, nil)
	if want := gjson.ValidBytes(line); ok != want {
		t.Fatalf("scanLine(%q) = %v, gjson.ValidBytes = %v", line, ok, want)
	}
	var want fields
	if ok {
		if obj := s[skipSpace(s, 0):]; obj[0] == '{' {
			members(obj, func(k, v string) bool {
				want = append(want, field{key: k, val: value(v), valid8: v[0] != '"' || utf8.ValidString(v), lone: loneOracle(gjson.Parse(v))})
				return true
			})
		}
	}
	if len(got) != len(want) {
		t.Fatalf("scanLine(%q): %d members, want %d", line, len(got), len(want))
	}
	for i := range got {
		if got[i].key != want[i].key || got[i].val.Raw != want[i].val.Raw || got[i].val.Type != want[i].val.Type || got[i].valid8 != want[i].valid8 {
			t.Fatalf("scanLine(%q): member %d = %q %q %v, want %q %q %v", line, i, got[i].key, got[i].val.Raw, got[i].valid8, want[i].key, want[i].val.Raw, want[i].valid8)
		}
		if got[i].lone != want[i].lone {
			t.Fatalf("scanLine(%q): member %d: lone surrogate %v, want %v", line, i, got[i].lone, want[i].lone)
		}
	}
}

// loneOracle reports whether a string of v (keys included) holds a UTF-16
// surrogate code unit that is not half of a pair, written out as the
// string's code units (escapes as their 16-bit value, other characters
// encoded in UTF-16, invalid UTF-8 as U+FFFD).
func loneOracle(v gjson.Result) bool {
	switch {
	case v.Type == gjson.String:
		var units []uint16
		s := v.Raw[1 : len(v.Raw)-1]
		for len(s) > 0 {
			if s[0] == '\\' {
				if s[1] == 'u' {
					n, _ := strconv.ParseUint(s[2:6], 16, 16)
					units = append(units, uint16(n))
					s = s[6:]
				} else {
					units = append(units, uint16(s[1]))
					s = s[2:]
				}
				continue
			}
			r, size := utf8.DecodeRuneInString(s)
			units = append(units, utf16.Encode([]rune{r})...)
			s = s[size:]
		}
		for i := 0; i < len(units); i++ {
			switch u := units[i]; {
			case u >= 0xD800 && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000:
				i++
			case u >= 0xD800 && u < 0xE000:
				return true
			}
		}
		return false
	case v.IsArray(), v.IsObject():
		lone := false
		v.ForEach(func(k, e gjson.Result) bool {
			lone = k.Type == gjson.String && loneOracle(k) || loneOracle(e)
			return !lone
		})
		return lone
	}
	return false
}

var scanSeeds = []string{
	`"\ud800"`, `"\udc00"`, `"\uDBFF\uDFFF"`, `"\ud83d\ude00"`, `"\ud83d\u0041"`, `"\ud83d"`, `"\\ud800"`, `"\\\ud800"`, `"\ud800\ud800\udc00"`,
	`{"a":["x","\ud800"]}`, `{"a":{"\udfff":1}}`, `{"a":"\ud83d\ude00","b":"\ude00"}`, `{"a":"\ud83dx\ude00"}`, `{"a":"\ud83d\n"}`,
	``, ` `, `{}`, ` { } `, `[]`, `[1,2]`, `[1,]`, `[,1]`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{,"a":1}`, `{"a":1 "b":2}`,
	`"x"`, `"\u00e9"`, `"\u00g9"`, `"\x"`, `"a\"b"`, `"a\\"`, `"a\\\"`, "\"a\tb\"", "\"a\x7fb\"", "\"\xff\"", "\"\xe6\x97\xa5\"", "\"\xe6\x97\"",
	`0`, `-`, `-0`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1e+5`, `1E-5x`, `-a`, `.5`, `true`, `tru`, `false`, `fals`, `null`, `nul`, `nullx`,
	`{"a":{"b":[1,{"c":"d"}]},"e":"f"}`, `{"a":"b"}x`, `{"a":"b"}` + "\n", "\t{\r\n\"a\" :\t\"b\" }\n",
	`{"task":"t","id":"1","response":"the quick brown fox jumps over the lazy dog — naïve 日本 \"q\" \\ end"}`,
	"{\"k\":\"abcdefgh\xffabcdefgh\",\"l\":\"12345678901234567\"}", `{"a":"b","a":"c"}`, `{"":""}`, `{"\u0061":1}`,
}

// TestScanLineMatchesGjson: scanLine accepts exactly what gjson.ValidBytes
// accepts and finds the members members finds, on hand-made lines and on
// random ones built from JSON's pieces (with every prefix of each).
func TestScanLineMatchesGjson(t *testing.T) {
	t.Parallel()
	for _, s := range scanSeeds {
		for i := 0; i <= len(s); i++ {
			checkScan(t, []byte(s[:i]))
		}
	}
	pieces := []string{`{`, `}`, `[`, `]`, `,`, `:`, ` `, "\n", `"`, `\`, `\"`, `\u12ab`, `\u12`, `\ud83d`, `\uDE00`, `\udbff`, `"key"`, `"a long string value of some words"`,
		`1`, `-2.5e3`, `0`, `true`, `null`, `x`, "\xe6\x97\xa5", "\xff", "\x01", "abcdefgh", "日本語テキスト", `\n`, `\/`}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 20000
	}
	for range n {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteString(`{"task":"t","response":"`)
		}
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(2) == 0 {
			b.WriteString(`"}`)
		}
		checkScan(t, []byte(b.String()))
	}
}

// FuzzScanLine: scanLine agrees with gjson.ValidBytes and members.
func FuzzScanLine(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range predictionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkScan(t, line) })
}

// TestSpecial: the eight-byte test finds the first byte the string
// scanner must look at, and passes eight plain bytes.
func TestSpecial(t *testing.T) {
	t.Parallel()
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(b[i])
			}
			checkSpecial(t, x)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		x := rng.Uint64()
		switch rng.IntN(3) {
		case 0:
			x &^= highs // ASCII, where the other tests matter
		case 1:
			// Mostly plain bytes, with a special one or two.
			x = 0x6867666564636261
			for range 1 + rng.IntN(2) {
				sh := 8 * rng.IntN(8)
				x = x&^(0xff<<sh) | uint64([]byte{0, 0x1f, '"', '\\', 0x80, 0xff, 0x20, 0x21, 0x5b, 0x5d, 0x7f}[rng.IntN(11)])<<sh
			}
		}
		checkSpecial(t, x)
	}
}

// checkSpecial checks special(x) against a byte-by-byte search.
func checkSpecial(t *testing.T, x uint64) {
	t.Helper()
	first := 8
	for i := range 8 {
		if c := byte(x >> (8 * i)); c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			first = i
			break
		}
	}
	m := special(x)
	got := 8
	if m != 0 {
		got = bits.TrailingZeros64(m) >> 3
	}
	if got != first || m&^highs != 0 {
		t.Fatalf("special(%#016x) = %#016x: first byte %d, want %d", x, m, got, first)
	}
}
