package textstats

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsCJK reports whether r is written without spaces between words and is
// counted one character at a time in Chinese (and Japanese/Korean) text:
// Han ideographs, kana, Hangul syllables and the ideographic iteration mark.
func IsCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == '〇'
}

// CountWordsZh counts words the way Chinese length limits ("不少于600字")
// are meant: every CJK character is one word; every maximal run of other
// word characters (a Latin word, a number) is one word; punctuation,
// symbols and whitespace are not counted. For pure English text it equals
// CountWords.
func CountWordsZh(s string) int {
	n := 0
	in := false
	for _, r := range s {
		switch {
		case IsCJK(r):
			n++
			in = false
		case IsWordRune(r):
			if !in {
				n++
			}
			in = true
		default:
			in = false
		}
	}
	return n
}

// isZhSentenceEnd reports the characters that end a Chinese sentence: 。！？
// and their half-width and full-width forms (｡ ! ? ！ ？) and the full-width
// full stop ．.
func isZhSentenceEnd(r rune) bool {
	switch r {
	case '。', '｡', '！', '？', '!', '?', '．':
		return true
	}
	return false
}

// isClosingPunct are characters that stay with the sentence they follow
// (closing quotes and brackets).
func isClosingPunct(r rune) bool {
	switch r {
	case '”', '’', '」', '』', '》', '〉', '）', ')', '】', ']', '"', '\'', '〕', '｝', '}':
		return true
	}
	return false
}

// SentencesZh splits Chinese (or mixed Chinese/English) text into
// sentences. A sentence ends at a run of 。！？ (any width) or at an ASCII
// '.' that is followed by whitespace, the end of the text or a CJK
// character and is not between two digits or part of an ellipsis; closing
// quotes and brackets right after the end belong to the sentence. Segments
// without any word or CJK character (stray punctuation) are not sentences.
// Line breaks alone do not end a sentence.
func SentencesZh(s string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		seg := s[start:end]
		if hasContent(seg) {
			out = append(out, Strip(seg))
		}
		start = end
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		end := -1
		switch {
		case isZhSentenceEnd(r):
			end = i + n
		case r == '.' && asciiPeriodEnds(s, i):
			end = i + n
		}
		if end < 0 {
			i += n
			continue
		}
		// Swallow further terminators and closing punctuation.
		for end < len(s) {
			c, cn := utf8.DecodeRuneInString(s[end:])
			if isZhSentenceEnd(c) || isClosingPunct(c) || c == '.' {
				end += cn
				continue
			}
			break
		}
		emit(end)
		i = end
	}
	emit(len(s))
	return out
}

func asciiPeriodEnds(s string, i int) bool {
	if i+1 < len(s) && s[i+1] == '.' || i > 0 && s[i-1] == '.' {
		return false // ellipsis "..."
	}
	// A list marker ("1. ", "12. ") at the start of a line is not a
	// sentence end.
	lineStart := strings.LastIndexByte(s[:i], '\n') + 1
	if marker := Strip(s[lineStart:i]); marker != "" && strings.Trim(marker, "0123456789") == "" {
		return false
	}
	if i+1 >= len(s) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(s[i+1:])
	return IsSpace(next) || IsCJK(next)
}

func hasContent(s string) bool {
	for _, r := range s {
		if IsWordRune(r) || IsCJK(r) {
			return true
		}
	}
	return false
}

// CountSentencesZh is len(SentencesZh(s)).
func CountSentencesZh(s string) int { return len(SentencesZh(s)) }
