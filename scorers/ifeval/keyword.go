package ifeval

import (
	"regexp"
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

// fast reports whether the ASCII search applies to s.
func (k *keyword) fast(s string) bool {
	return k.lower != "" && !hasASCIIFoldPartner(s)
}

// count is len(re.findall(pattern, s, re.IGNORECASE)).
func (k *keyword) count(s string) int {
	if !k.fast(s) {
		return len(k.re().FindAllStringIndex(s, -1))
	}
	n := 0
	for i := 0; ; {
		j := indexFold(s[i:], k.lower)
		if j < 0 {
			return n
		}
		n++
		i += j + len(k.lower)
	}
}

// bounded reports whether the pattern occurs in s between two Python `\b`
// word boundaries (the official r"\b" + word + r"\b").
func (k *keyword) bounded(s string) bool {
	var t textFold
	return k.boundedIn(&t, s)
}

// textFold remembers whether the ASCII search applies to a text, for all
// the keywords looked up in it.
type textFold struct {
	done, fast bool
}

func (t *textFold) ok(s string) bool {
	if !t.done {
		t.done, t.fast = true, !hasASCIIFoldPartner(s)
	}
	return t.fast
}

// containsIn is re.search(pattern, s, re.IGNORECASE) is not None.
func (k *keyword) containsIn(t *textFold, s string) bool {
	if k.lower == "" || !t.ok(s) {
		return k.re().MatchString(s)
	}
	return indexFold(s, k.lower) >= 0
}

// boundedIn is bounded, with what t remembers of s.
func (k *keyword) boundedIn(t *textFold, s string) bool {
	if k.lower == "" || !t.ok(s) {
		return findBounded(k.re(), s)
	}
	for pos := 0; pos <= len(s); {
		i := indexFold(s[pos:], k.lower)
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

// indexFold is the index of the first occurrence of p in s with ASCII
// letters compared case-insensitively (p is non-empty and lower-case
// ASCII), or -1. Bytes of s outside ASCII never equal a byte of p, so a
// match starts and ends at character boundaries.
func indexFold(s, p string) int {
	c, u := p[0], p[0]
	if 'a' <= c && c <= 'z' {
		u = c - ('a' - 'A')
	}
	for i := 0; i+len(p) <= len(s); i++ {
		if b := s[i]; b != c && b != u {
			continue
		}
		if equalFoldASCII(s[i+1:i+len(p)], p[1:]) {
			return i
		}
	}
	return -1
}

// equalFoldASCII reports whether s equals the lower-case ASCII p with
// ASCII letters compared case-insensitively.
func equalFoldASCII(s, p string) bool {
	for i := 0; i < len(p); i++ {
		b := s[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if b != p[i] {
			return false
		}
	}
	return true
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
