package textstats

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Python's str case predicates and str.lower(), which the official IFEval
// checkers use, as in Python 3.11 (Unicode 14.0; Go's tables are 15.0, see
// unicode14.go).

// IsUpperRune is Python's Py_UNICODE_ISUPPER: the Unicode Uppercase
// property, Lu plus Other_Uppercase (Roman numerals such as Ⅻ, circled
// capitals such as Ⓐ).
func IsUpperRune(r rune) bool {
	if r < 0x80 {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r) || unicode.Is(unicode.Other_Uppercase, r)
}

// IsLowerRune is Python's Py_UNICODE_ISLOWER: the Unicode Lowercase
// property, Ll plus Other_Lowercase (ª, º, modifier letters such as ʰ,
// small Roman numerals such as ⅻ), without the characters Unicode 15.0
// made lowercase.
func IsLowerRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z'
	}
	return (unicode.IsLower(r) || unicode.Is(unicode.Other_Lowercase, r)) && !unicode.Is(newIn15Lower, r)
}

// isTitleRune is Python's Py_UNICODE_ISTITLE: category Lt (ǅ, ᾈ, ...).
func isTitleRune(r rune) bool { return r >= 0x80 && unicode.IsTitle(r) }

// isCased is the Unicode Cased property (Lowercase, Uppercase or Lt).
func isCased(r rune) bool { return IsUpperRune(r) || IsLowerRune(r) || isTitleRune(r) }

// IsUpper is Python's str.isupper(): no lowercase or titlecase character
// and at least one uppercase one; uncased characters (digits, punctuation,
// Chinese) are ignored. "ABC 123" and "Ⅻ" are upper-case, "ǅ" and "123"
// are not.
func IsUpper(s string) bool { return onlyCase(s, IsUpperRune, IsLowerRune) }

// IsLower is Python's str.islower(): no uppercase or titlecase character
// and at least one lowercase one. "abc 123", "ª" and "º" are lower-case,
// "ǅ" and "123" are not.
func IsLower(s string) bool { return onlyCase(s, IsLowerRune, IsUpperRune) }

// onlyCase reports whether s has a character of the case is and none of
// the case other nor titlecase.
func onlyCase(s string, is, other func(rune) bool) bool {
	found := false
	for _, r := range s {
		if other(r) || isTitleRune(r) {
			return false
		}
		if !found && is(r) {
			found = true
		}
	}
	return found
}

// Lower is Python's str.lower(): each character's lowercase mapping, with
// Python's two full mappings: İ (U+0130) becomes "i̇" (i and U+0307), and
// a capital sigma becomes final ς when it ends a word (a cased letter
// before it and none after it, case-ignorable characters skipped) and σ
// otherwise.
func Lower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case 0x0130:
			b.WriteString("i\u0307")
		case 0x03a3:
			if finalSigma(s, i) {
				b.WriteRune(0x03c2)
			} else {
				b.WriteRune(0x03c3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at byte i of s is in the
// Final_Sigma context: \p{cased} \p{case-ignorable}* Σ and not followed by
// \p{case-ignorable}* \p{cased}.
func finalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if !isCaseIgnorable(r) {
			before = isCased(r)
			break
		}
	}
	if !before {
		return false
	}
	for _, r := range s[i+2:] { // Σ is two bytes
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}

// isCaseIgnorable is the Unicode Case_Ignorable property: categories Mn,
// Me, Cf, Lm and Sk, and the word-break classes MidLetter, MidNumLet and
// Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0x00b7, 0x0387, 0x055f, 0x05f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
