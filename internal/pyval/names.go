package pyval

import (
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/runenames"
)

var (
	namesOnce sync.Once
	byName    map[string]rune
)

// Lookup returns the character named name, as Python's \N{name} and
// unicodedata.lookup find it: case-insensitively, by the names of the
// Unicode Character Database (that of golang.org/x/text, which may be a
// newer Unicode version than a given Python's) and the algorithmic names
// "CJK UNIFIED IDEOGRAPH-XXXX" and "HANGUL SYLLABLE …". Name aliases and
// named sequences are not looked up.
func Lookup(name string) (rune, bool) {
	name = strings.ToUpper(name)
	if h, ok := strings.CutPrefix(name, "CJK UNIFIED IDEOGRAPH-"); ok {
		if len(h) != 4 && len(h) != 5 {
			return 0, false
		}
		n, err := strconv.ParseUint(h, 16, 32)
		if err != nil || !unicode.Is(unicode.Unified_Ideograph, rune(n)) {
			return 0, false
		}
		return rune(n), true
	}
	if s, ok := strings.CutPrefix(name, "HANGUL SYLLABLE "); ok {
		return hangul(s)
	}
	namesOnce.Do(func() {
		byName = make(map[string]rune, 40000)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if n := runenames.Name(r); n != "" && n[0] != '<' {
				if _, dup := byName[n]; !dup {
					byName[n] = r
				}
			}
		}
	})
	r, ok := byName[name]
	return r, ok
}

var (
	jamoL = []string{"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H"}
	jamoV = []string{"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"}
	jamoT = []string{"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C", "K", "T", "P", "H"}
)

// hangul finds the syllable whose name (after "HANGUL SYLLABLE ") is s.
func hangul(s string) (rune, bool) {
	for l, ln := range jamoL {
		rest, ok := strings.CutPrefix(s, ln)
		if !ok {
			continue
		}
		for v, vn := range jamoV {
			tail, ok := strings.CutPrefix(rest, vn)
			if !ok {
				continue
			}
			for t, tn := range jamoT {
				if tail == tn {
					return rune(0xAC00 + (l*21+v)*28 + t), true
				}
			}
		}
	}
	return 0, false
}
