// Package textstats provides the text statistics that instruction-following
// checkers are built on: word counts, sentence splitting, word tokens and
// Python's str case predicates and lower(), for English (matching the
// official IFEval scorer's nltk and str behaviour) and for Chinese
// (character-aware counting).
//
// Everything here is a pure, deterministic function of its input: no I/O, no
// randomness, no global state that callers can change. Sentences follow
// nltk's Punkt algorithm with nltk's pretrained English model, whose
// parameters are embedded as data (punkt_english.tsv; see docs/ifeval.md).
// Language identification is package langdetect's.
package textstats

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsWordRune reports whether r matches Python's `\w` for str patterns:
// letters (L*), numbers (N*) and the underscore. Combining marks (Mn, Mc),
// such as Devanagari vowel signs, are not word characters, exactly as in
// Python. Letters and numbers new in Unicode 15.0 are not word characters
// either, as in Python 3.11 (unicode14.go).
func IsWordRune(r rune) bool {
	if r < 0x80 {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return (unicode.IsLetter(r) || unicode.IsNumber(r)) && !unicode.Is(newIn15Word, r)
}

// IsSpace reports whether r is whitespace for Python's str.isspace() and
// `\s`: Unicode White_Space plus the ASCII separators 0x1c–0x1f.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0:
		return true
	}
	if r < 0x80 {
		return false
	}
	return unicode.Is(unicode.White_Space, r)
}

// Strip is Python's str.strip() with no arguments.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Fields is Python's str.split() with no arguments.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// Words returns the maximal runs of word characters in s, the tokens of
// nltk's RegexpTokenizer(r"\w+") that IFEval's count_words uses.
func Words(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			out = append(out, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// CountWords counts words the way the official IFEval scorer does: the
// number of maximal runs of Python `\w` characters. "don't" is two words,
// "state-of-the-art" four, "3.5" two.
func CountWords(s string) int {
	n := 0
	in := false
	for _, r := range s {
		w := IsWordRune(r)
		if w && !in {
			n++
		}
		in = w
	}
	return n
}

// HasLetter reports whether s contains any letter.
func HasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// RuneLen is Python's len() of a str.
func RuneLen(s string) int { return utf8.RuneCountInString(s) }
