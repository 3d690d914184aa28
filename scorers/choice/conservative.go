package choice

import (
	"strings"
	"unicode/utf8"
)

// Methods of the final-answer section rule (see finalAnswer).
const (
	MethodFinalAnswer = "final_answer"    // 【答案】 B <eoa>
	MethodSeveral     = "several_letters" // 【答案】 A、B: not an answer to a single-choice question
	MethodNoOption    = "no_option"       // 【答案】 无正确答案: the model names no option
)

// finalAnswer reads the last GAOKAO-style answer section — the text after
// the last 【答案】 up to <eoa>, the next 【 or a blank line — for an
// n-option single-choice question. The section decides: one option letter
// is the answer; several different ones (A、B, "A和C") or none ("无正确答案")
// are no answer, reported by the Method of a not-found Extraction, and
// nothing else in the response is consulted. ok is false when the response
// has no such section.
func finalAnswer(text string, n int) (e Extraction, ok bool) {
	const marker = "【答案】"
	// strings.Index is vectorised, LastIndex is not: most responses
	// have no marker.
	if !strings.Contains(text, marker) {
		return none, false
	}
	i := strings.LastIndex(text, marker)
	if i < 0 {
		return none, false
	}
	sec := text[i+len(marker):]
	for _, end := range []string{"<eoa>", "【", "\n\n"} {
		if j := strings.Index(sec, end); j >= 0 {
			sec = sec[:j]
		}
	}
	got := -1
	for k := 0; k < len(sec); k++ {
		if !isCapital(sec[k]) || (k > 0 && isASCIIAlnum(sec[k-1])) || (k+1 < len(sec) && isASCIIAlnum(sec[k+1])) {
			continue
		}
		idx := int(sec[k] - 'A')
		if idx >= n {
			continue
		}
		if got >= 0 && got != idx {
			return Extraction{Index: -1, Method: MethodSeveral}, true
		}
		got = idx
	}
	if got < 0 {
		return Extraction{Index: -1, Method: MethodNoOption}, true
	}
	return Extraction{Index: got, Letter: Letter(got), Method: MethodFinalAnswer}, true
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maskMath blanks the mathematics of a response — $$…$$, $…$, \(…\) and
// \[…\] spans, an unclosed opener running to the end — so that the
// fallback rules do not read a variable ($$E=mc^2$$) as an option letter.
// Byte offsets are kept (every masked byte becomes a space).
func maskMath(text string) string {
	if strings.IndexByte(text, '$') < 0 && strings.IndexByte(text, '\\') < 0 {
		return text
	}
	b := []byte(text)
	blank := func(from, to int) {
		for k := from; k < to; k++ {
			b[k] = ' '
		}
	}
	for i := 0; i < len(text); {
		var open, close string
		switch {
		case strings.HasPrefix(text[i:], "$$"):
			open, close = "$$", "$$"
		case text[i] == '$':
			open, close = "$", "$"
		case strings.HasPrefix(text[i:], `\(`):
			open, close = `\(`, `\)`
		case strings.HasPrefix(text[i:], `\[`):
			open, close = `\[`, `\]`
		default:
			i++
			continue
		}
		j := strings.Index(text[i+len(open):], close)
		end := len(text)
		if j >= 0 {
			end = i + len(open) + j + len(close)
		}
		blank(i, end)
		i = end
	}
	return string(b)
}

// inFormula reports whether the standalone letter at pos sits in a
// formula: next to an operator or relation ("K = F", "A + B", "x^B"), or
// applied as a function ("F (i)"). Such letters are variables, not
// answers, for the last-resort rule.
func inFormula(text string, pos int) bool {
	const ops = `=+-*/^_\{}<>|×÷≤≥≠`
	before := strings.TrimRight(text[:pos], " ")
	if r, _ := utf8.DecodeLastRuneInString(before); before != "" && strings.ContainsRune(ops, r) {
		return true
	}
	after := strings.TrimLeft(text[pos+1:], " ")
	r, _ := utf8.DecodeRuneInString(after)
	return after != "" && (strings.ContainsRune(ops, r) || r == '(' && pos+1 < len(text) && text[pos+1] == ' ')
}
