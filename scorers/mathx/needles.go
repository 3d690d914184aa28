package mathx

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// needles are substrings one of which every match of a pattern contains,
// in lower case: a text is tested with its ASCII letters lower-cased, so
// a needle stands for itself in any mix of ASCII cases. They spare the
// regular expressions the texts that cannot match (most responses hold
// one answer cue, if any, of the dozen a flexible extraction tries).
// Nil means no test. A test may be passed wrongly, never failed wrongly:
// a text holding a non-ASCII character that (?i) folds with an ASCII
// letter (U+017F ſ, U+212A K) passes every test.
type needles []string

// cueNeedles are the needles of a task's answer cue c, matched as (?i)c:
// its longest run of characters that fold only with ASCII letters or not
// at all ("答案是", "the answer is"; "la r" of "La réponse est", as é has
// a capital). A cue without one gets no test.
func cueNeedles(c string) needles {
	best, run := "", ""
	for _, r := range c + "\uFFFF" { // U+FFFF ends the last run
		if r != '\uFFFF' && (r < utf8.RuneSelf || unicode.SimpleFold(r) == r) {
			run += string(r)
			continue
		}
		if len(run) > len(best) {
			best = run
		}
		run = ""
	}
	if best == "" {
		return nil
	}
	return needles{lowerASCII(best)}
}

// foldEscapes are the non-ASCII characters (?i) folds with ASCII letters.
var foldEscapes = func() []string {
	var out []string
	for c := 'a'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= utf8.RuneSelf {
				out = append(out, string(r))
			}
		}
	}
	return out
}()

// finder tests needles against one text.
type finder struct {
	text    string
	checked bool
	all     bool // the text passes every test
}

func newFinder(text string) *finder { return &finder{text: text} }

// may reports whether the text contains one of ns, ignoring ASCII case
// (true for nil ns).
func (f *finder) may(ns needles) bool {
	if ns == nil {
		return true
	}
	if !f.checked {
		f.checked = true
		for _, e := range foldEscapes {
			if strings.Contains(f.text, e) {
				f.all = true
			}
		}
	}
	if f.all {
		return true
	}
	for _, n := range ns {
		if containsFold(f.text, n) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains n (lower-case) in any mix of
// ASCII cases. A match has one of the two cases of n's rarest letter at
// a known place: candidates are found with strings.IndexByte and only
// they are compared.
func containsFold(s, n string) bool {
	a := rarestLetter(n)
	if a < 0 {
		return strings.Contains(s, n)
	}
	for _, c := range [2]byte{n[a], n[a] - ('a' - 'A')} {
		for i := a; i < len(s); i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				break
			}
			i += j
			if start := i - a; start+len(n) <= len(s) && hasFold(s[start:], n) {
				return true
			}
		}
	}
	return false
}

// hasFold reports whether s starts with n (lower-case) in any mix of
// ASCII cases.
func hasFold(s, n string) bool {
	for j := 0; j < len(n); j++ {
		c := s[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != n[j] {
			return false
		}
	}
	return true
}

// letterFrequency lists the lower-case letters from the most to the least
// frequent in English text.
const letterFrequency = "etaoinsrhldcumfpgwybvkxjqz"

// rarestLetter is the position in n of its least frequent ASCII letter
// (-1 when it has none).
func rarestLetter(n string) int {
	best, rank := -1, -1
	for i := 0; i < len(n); i++ {
		if r := strings.IndexByte(letterFrequency, n[i]); r > rank {
			best, rank = i, r
		}
	}
	return best
}

// lowerASCII lower-cases the ASCII letters of s (other bytes as they are).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
