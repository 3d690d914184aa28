package ifeval

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// keyword matches a word or phrase from the data the way the official
// code does, with re.search / re.findall of the pattern under
// re.IGNORECASE (compilePy with the prefix "(?i)"). The pattern is
// compiled on first use only: for the common case, a plain ASCII pattern
// (no regular-expression syntax) in a text without the four non-ASCII
// letters that fold to ASCII ones (K U+212A and ſ U+017F under Go's (?i),
// İ U+0130 and ı U+0131 under Python's), the matches are exactly those of
// an ASCII case-insensitive substring search, which the checkers then use
// (TestKeywordFastPath compares both on the conformance responses).
type keyword struct {
	lower string // the pattern, ASCII lower-cased; "" when the fast path never applies
	re    func() *regexp.Regexp
}

func newKeyword(pattern string) *keyword {
	k := &keyword{re: sync.OnceValue(func() *regexp.Regexp { return compilePy("(?i)", pattern, "") })}
	if pattern != "" && isASCIIString(pattern) && regexp.QuoteMeta(pattern) == pattern {
		k.lower = asciiLower(pattern)
	}
	return k
}

// folded returns s ASCII lower-cased when the fast path applies to s.
func (k *keyword) folded(s string) (string, bool) {
	if k.lower == "" || hasASCIIFoldPartner(s) {
		return "", false
	}
	return asciiLower(s), true
}

// count is len(re.findall(pattern, s, re.IGNORECASE)).
func (k *keyword) count(s string) int {
	if low, ok := k.folded(s); ok {
		return strings.Count(low, k.lower)
	}
	return len(k.re().FindAllStringIndex(s, -1))
}

// bounded reports whether the pattern occurs in s between two Python `\b`
// word boundaries (the official r"\b" + word + r"\b").
func (k *keyword) bounded(s string) bool {
	low, ok := k.folded(s)
	if !ok {
		return findBounded(k.re(), s)
	}
	for pos := 0; pos <= len(s); {
		i := strings.Index(low[pos:], k.lower)
		if i < 0 {
			return false
		}
		start, end := pos+i, pos+i+len(k.lower)
		if isBoundary(s, start) && isBoundary(s, end) {
			return true
		}
		_, n := utf8.DecodeRuneInString(s[start:])
		pos = start + n
	}
	return false
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiLower lower-cases the ASCII letters of s, leaving every other byte.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// hasASCIIFoldPartner reports whether s holds K (U+212A), ſ (U+017F),
// İ (U+0130) or ı (U+0131), the letters outside ASCII that a
// case-insensitive ASCII pattern can match.
func hasASCIIFoldPartner(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case 0xC4:
			if s[i+1] == 0xB0 || s[i+1] == 0xB1 {
				return true
			}
		case 0xC5:
			if s[i+1] == 0xBF {
				return true
			}
		case 0xE2:
			if s[i+1] == 0x84 && i+2 < len(s) && s[i+2] == 0xAA {
				return true
			}
		}
	}
	return false
}
