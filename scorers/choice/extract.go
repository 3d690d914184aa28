// Package choice provides the scorers of multiple-choice benchmarks: it
// extracts the chosen option letter from free-form model output (English
// and Chinese phrasings), and picks the answer of a log-likelihood run by
// argmax over the options' log-probabilities, raw and length-normalised.
//
// Extraction comes in two strengths. Strict accepts only an explicit answer
// statement ("Answer: B", "the answer is (B)", "答案：B", "答案是B").
// Flexible tries strict first and then, in order, Chinese "选B", a response
// that opens with the letter ("B", "B.", "(B)", "B) text"), a single
// bracketed or "option B" mention, the option's own text, and a single
// standalone capital letter. Every step is conservative: when a step finds
// several different letters it does not guess and the next step is tried.
//
// The package intentionally knows nothing about prompts or datasets.
package choice

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Method names say which rule produced an extraction; they are recorded in
// sample details for audit.
const (
	MethodAnswerStatement = "answer_statement" // "Answer: B", "答案是B" (strict)
	MethodChineseSelect   = "zh_select"        // "选B", "故选B"
	MethodLeadingLetter   = "leading_letter"   // "B", "B.", "(B)", "B) ..."
	MethodMention         = "mention"          // a single "(B)" / "option B"
	MethodOptionText      = "option_text"      // the option's own text
	MethodLoneLetter      = "lone_letter"      // a single standalone capital letter
)

// Extraction is the answer found in a response.
type Extraction struct {
	// Index is the 0-based option index, -1 when nothing was found.
	Index int
	// Letter is the option letter ("B"), "" when nothing was found.
	Letter string
	// Method names the rule that matched ("" when nothing was found).
	Method string
}

// Found reports whether an option was extracted.
func (e Extraction) Found() bool { return e.Index >= 0 }

// Strict reports whether the extraction came from an explicit answer
// statement.
func (e Extraction) Strict() bool {
	return e.Method == MethodAnswerStatement || e.Method == MethodFinalAnswer
}

var none = Extraction{Index: -1}

// Letter returns the option letter for a 0-based index ("A" for 0).
func Letter(i int) string { return string(rune('A' + i)) }

// LetterIndex returns the 0-based index of an option letter ("B" → 1), or
// -1 if s is not a single letter A–Z (either case).
func LetterIndex(s string) int {
	s = strings.TrimSpace(s)
	if len(s) != 1 {
		return -1
	}
	c := s[0]
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c - 'a')
	}
	return -1
}

// patterns are the regular expressions of this file, compiled on first
// use so that importing the package costs nothing.
var patterns = sync.OnceValue(func() *extractPatterns {
	p := &extractPatterns{
		// English answer statements: "answer" then a colon or a verb ("is",
		// "would be"…), so "the answer A is wrong" does not count. The letter
		// must be a capital, optionally bracketed, and must not start a longer
		// word ("Answer: Because").
		answerEN: regexp.MustCompile(`(?i:answer)[\s*]*(?:(?:(?i:is|would\s+be|should\s+be|will\s+be|must\s+be)[\s*]*[:：]?)|[:：])[\s*]*(?:(?i:option|choice)\s+)?[\(\[]?\s*([A-Z])\s*[\)\]]?\**(?:[^A-Za-z0-9]|$)`),
		// Chinese answer statements: 答案：B, 答案是B, 正确答案为（B）, 答案应该选B.
		answerZH: regexp.MustCompile(`答案[\s*]*(?:应该|应当|应)?\s*(?:是|为|选择|选)?[\s*]*[:：]?[\s*]*(?:选项)?\s*[\(（\[【]?\s*([A-Za-z])\s*[\)）\]】]?\**(?:[^A-Za-z0-9]|$)`),
		// Chinese selection: 选B, 故选B, 选择 B, B项正确, 选项B符合题意.
		selectZH: regexp.MustCompile(`(?:选(?:择)?\s*[:：]?\s*[\(（]?\s*([A-Z])(?:[^A-Za-z0-9]|$))|(?:([A-Z])\s*(?:选?项)?\s*(?:是|为)?\s*(?:正确|符合题意|当选))`),
		// A response that opens with the letter.
		leading:     regexp.MustCompile(`^\s*(?:\*+)?[\(\[（]?\s*([A-Z])\s*(?:[\)\]）\.．:：、,，]|\*+|$)`),
		leadingLone: regexp.MustCompile(`^\s*([A-Z])\s*$`),
		// Mentions: (B), [B], option B, 选项B.
		mention: regexp.MustCompile(`(?:[\(\[（]\s*([A-Z])\s*[\)\]）])|(?:(?i:option|choice)\s*[:：]?\s*([A-Z])(?:[^A-Za-z0-9]|$))|(?:选项\s*([A-Z])(?:[^A-Za-z0-9]|$))`),
		// What follows a letter that is being ruled out: "A is wrong",
		// "A项错误", "A不正确".
		rejected: regexp.MustCompile(`^\s*(?:(?i:is\s+(?:wrong|incorrect|false|not))|(?:选?项)?\s*(?:错|不|排除))`),
		// Standalone capital letters, (?:^|[^A-Za-z0-9'’])([A-Z])(?:[^A-Za-z0-9'’]|$),
		// are found by loneLetters rather than by a regular expression.
	}
	// answerENAt is answerEN anchored at the start of its input.
	p.answerENAt = regexp.MustCompile(`^(?:` + p.answerEN.String() + `)`)
	return p
})

type extractPatterns struct {
	answerEN, answerENAt, answerZH, selectZH *regexp.Regexp
	leading, leadingLone, mention, rejected  *regexp.Regexp
}

// normalize folds full-width letters (Ｂ) to ASCII; the patterns accept
// full-width punctuation themselves.
func normalize(s string) string {
	// Full-width letters are U+FF21–U+FF3A and U+FF41–U+FF5A, encoded
	// EF BC A1–BA and EF BD 81–9A: without an EF byte there is none.
	if strings.IndexByte(s, 0xEF) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r >= 'Ａ' && r <= 'Ｚ' {
			return r - 'Ａ' + 'A'
		}
		if r >= 'ａ' && r <= 'ｚ' {
			return r - 'ａ' + 'a'
		}
		return r
	}, s)
}

// ExtractStrict finds an explicit answer statement for an n-option
// question. A final 【答案】 section decides first (finalAnswer: one
// letter, or no answer when it names several or none); otherwise the
// first statement naming a valid letter wins, as in the official
// extractors (a runaway continuation's later answers are ignored).
func ExtractStrict(text string, n int) Extraction {
	text = normalize(text)
	if e, ok := finalAnswer(text, n); ok {
		return e
	}
	type hit struct {
		pos int
		idx int
	}
	best := hit{pos: -1}
	for _, re := range []*regexp.Regexp{patterns().answerEN, patterns().answerZH} {
		if !mayMatch(re, text) {
			continue
		}
		// The first statement naming a valid letter counts for each
		// language; the earlier of the two wins.
		for _, m := range findAll(re, text) {
			idx := LetterIndex(text[m[2]:m[3]])
			if idx < 0 || idx >= n {
				continue
			}
			if best.pos < 0 || m[0] < best.pos {
				best = hit{pos: m[0], idx: idx}
			}
			break
		}
	}
	if best.pos < 0 {
		return none
	}
	return Extraction{Index: best.idx, Letter: Letter(best.idx), Method: MethodAnswerStatement}
}

// Extract finds the chosen option of an n-option question in text, trying
// the strict rule first and then the flexible ones (see the package doc).
// choices are the option texts, used by the option-text rule; they may be
// nil.
func Extract(text string, choices []string) Extraction {
	return ExtractN(text, len(choices), choices)
}

// ExtractN is Extract for an n-option question whose texts may be unknown.
func ExtractN(text string, n int, choices []string) Extraction {
	return ExtractAfterStrict(text, n, choices, ExtractStrict(text, n))
}

// ExtractAfterStrict is ExtractN for a caller that already has
// strict = ExtractStrict(text, n): the strict rule is not run again.
func ExtractAfterStrict(text string, n int, choices []string, strict Extraction) Extraction {
	if strict.Found() || strict.Method != "" {
		return strict
	}
	text = normalize(text)
	math := maskMath(text)
	found := func(idx int, method string) Extraction {
		return Extraction{Index: idx, Letter: Letter(idx), Method: method}
	}
	if idx := uniqueLetter(patterns().selectZH, text, n, false); idx >= 0 {
		return found(idx, MethodChineseSelect)
	}
	if idx := leadingLetter(text, n); idx >= 0 {
		return found(idx, MethodLeadingLetter)
	}
	if idx := uniqueLetter(patterns().mention, math, n, false); idx >= 0 {
		return found(idx, MethodMention)
	}
	if idx := optionText(text, choices); idx >= 0 {
		return found(idx, MethodOptionText)
	}
	if idx := uniqueLoneLetter(math, n); idx >= 0 {
		return found(idx, MethodLoneLetter)
	}
	return none
}

// findAll is re.FindAllStringSubmatchIndex(text, -1). Every match of
// answerEN starts with the word "answer", so its matches are found by
// trying the anchored pattern where the word occurs — the backtracking
// matcher otherwise tries every position of a long response.
func findAll(re *regexp.Regexp, text string) [][]int {
	if re != patterns().answerEN {
		return re.FindAllStringSubmatchIndex(text, -1)
	}
	var all [][]int
	end := 0 // matches do not overlap: the next starts where one ends
	for i := 0; i < len(text); i++ {
		if i < end || text[i]|0x20 != 'a' || !hasFoldPrefix(text[i:], "answer") {
			continue
		}
		m := patterns().answerENAt.FindStringSubmatchIndex(text[i:])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += i
			}
		}
		all = append(all, m)
		end = m[1]
	}
	return all
}

// hasFoldPrefix reports whether s starts with word (lower-case ASCII)
// under the simple case folding of (?i): either case of each letter, and
// U+017F (ſ) for s and U+212A (K) for k.
func hasFoldPrefix(s, word string) bool {
	j := 0
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case j < len(s) && s[j]|0x20 == c:
			j++
		case c == 's' && strings.HasPrefix(s[j:], "ſ"):
			j += len("ſ")
		case c == 'k' && strings.HasPrefix(s[j:], "\u212a"):
			j += len("\u212a")
		default:
			return false
		}
	}
	return true
}

// mayMatch reports whether re can match text at all, from a substring
// every match of it must contain: a cheap test that spares most responses
// the regular expression. It is exact in one direction only — false means
// no match — and knows the patterns of this file.
func mayMatch(re *regexp.Regexp, text string) bool {
	switch re {
	case patterns().answerEN:
		// (?i:answer): Go folds 's' with U+017F (ſ) as well.
		return containsFoldASCII(text, "answer") || strings.ContainsRune(text, 'ſ')
	case patterns().answerZH:
		return strings.Contains(text, "答案")
	case patterns().selectZH:
		// 选 (and 当选), or 正确, or 符合题意.
		return strings.Contains(text, "选") || strings.Contains(text, "正确") || strings.Contains(text, "符合题意")
	case patterns().mention:
		return strings.IndexByte(text, '(') >= 0 || strings.IndexByte(text, '[') >= 0 ||
			strings.Contains(text, "（") || strings.Contains(text, "选项") ||
			containsFoldASCII(text, "option") || containsFoldASCII(text, "choice")
	}
	return true
}

// ContainsFold reports whether s contains word, which must be lower-case
// ASCII letters, in any mix of ASCII cases: a cheap test of whether a
// case-insensitive pattern built on the word can match (Go's (?i) also
// folds 's' with U+017F ſ and 'k' with U+212A K, which callers test
// apart).
func ContainsFold(s, word string) bool { return containsFoldASCII(s, word) }

// containsFoldASCII reports whether s contains word (lower-case ASCII
// letters) in any mix of cases. A match has one of the two cases of the
// word's rarest letter at a known place: candidates are found with
// strings.IndexByte (vectorised) and only they are compared.
func containsFoldASCII(s, word string) bool {
	a := rarestLetter(word)
	for _, c := range [2]byte{word[a], word[a] - ('a' - 'A')} {
		for i := a; i < len(s); i++ {
			j := strings.IndexByte(s[i:], c)
			if j < 0 {
				break
			}
			i += j
			if start := i - a; start+len(word) <= len(s) && hasFoldASCII(s[start:], word) {
				return true
			}
		}
	}
	return false
}

// hasFoldASCII reports whether s starts with word (lower-case ASCII
// letters) in any mix of cases.
func hasFoldASCII(s, word string) bool {
	for j := 0; j < len(word); j++ {
		if s[j]|0x20 != word[j] {
			return false
		}
	}
	return true
}

// letterFrequency lists the lower-case letters from the most to the least
// frequent in English text.
const letterFrequency = "etaoinsrhldcumfpgwybvkxjqz"

// rarestLetter is the position in word of its least frequent letter.
func rarestLetter(word string) int {
	best, rank := 0, -1
	for i := 0; i < len(word); i++ {
		if r := strings.IndexByte(letterFrequency, word[i]); r > rank {
			best, rank = i, r
		}
	}
	return best
}

// leadingLetter accepts a response that opens with a valid letter. A bare
// "A" or "I" followed by a lower-case word is English ("A good question"),
// so it needs punctuation or brackets to count.
func leadingLetter(text string, n int) int {
	if !mayLead(text) {
		return -1
	}
	if m := patterns().leadingLone.FindStringSubmatch(text); m != nil {
		if idx := LetterIndex(m[1]); idx < n {
			return idx
		}
		return -1
	}
	m := patterns().leading.FindStringSubmatchIndex(text)
	if m == nil {
		return -1
	}
	idx := LetterIndex(text[m[2]:m[3]])
	if idx < 0 || idx >= n {
		return -1
	}
	return idx
}

// mayLead reports whether leadingLetter's patterns can match text: after
// the white space of \s (space, \t, \n, \f, \r) both need a capital, or
// the '*', '(', '[' or '（' before one. False is exact.
func mayLead(text string) bool {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\f' || text[i] == '\r') {
		i++
	}
	if i == len(text) {
		return false
	}
	c := text[i]
	return c >= 'A' && c <= 'Z' || c == '*' || c == '(' || c == '[' || strings.HasPrefix(text[i:], "（")
}

// uniqueLetter returns the one valid letter the pattern finds (any capture
// group), or -1 if it finds none or several different ones. With prose set,
// the English words "A" (article, before a lower-case word) and "I" are
// skipped, and so are letters being ruled out ("A is wrong", "A项错误").
func uniqueLetter(re *regexp.Regexp, text string, n int, prose bool) int {
	got := -1
	if !mayMatch(re, text) {
		return got
	}
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		for g := 1; g*2 < len(m); g++ {
			if m[2*g] < 0 {
				continue
			}
			l := text[m[2*g]:m[2*g+1]]
			if prose && isProseWord(l, text[m[2*g+1]:]) {
				continue
			}
			idx := LetterIndex(l)
			if idx < 0 || idx >= n {
				continue
			}
			if got >= 0 && got != idx {
				return -1
			}
			got = idx
		}
	}
	return got
}

func isProseWord(letter, rest string) bool {
	if patterns().rejected.MatchString(rest) {
		return true
	}
	if letter == "I" {
		return true
	}
	if letter != "A" {
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsLower(r)
}

// uniqueLoneLetter is uniqueLetter for standalone capital letters, with
// the prose rules.
func uniqueLoneLetter(text string, n int) int {
	got := -1
	for _, pos := range loneLetters(text) {
		l := text[pos : pos+1]
		if isProseWord(l, text[pos+1:]) || inFormula(text, pos) {
			continue
		}
		idx := LetterIndex(l)
		if idx < 0 || idx >= n {
			continue
		}
		if got >= 0 && got != idx {
			return -1
		}
		got = idx
	}
	return got
}

// loneLetters returns the positions of the capital letters the regular
// expression (?:^|[^A-Za-z0-9'’])([A-Z])(?:[^A-Za-z0-9'’]|$) captures with
// FindAll: leftmost matches, each search starting where the previous match
// ended — so the character after a letter, once consumed, cannot also be
// the one before the next ("A B" finds A only). A scan from capital to
// capital instead of the backtracking matcher, which dominated the
// scoring of long responses: a match's letter is the first capital after
// the search start whose neighbours are not word characters, and only
// capitals are looked at (TestExtractMatchesReference, FuzzLoneLetters).
func loneLetters(text string) []int {
	var found []int
	s := 0 // where the next match may start
	for p := 0; p < len(text); p++ {
		for p < len(text) && text[p]-'A' >= 26 {
			p++
		}
		if p == len(text) {
			break
		}
		// Before the letter: the start of the text (^), or a character
		// after s that is not a word character. The only non-ASCII word
		// character, ’ (E2 80 99), starts with a byte that is never part
		// of another character, so decoding backwards finds the
		// character decoding forwards from s does.
		if p > 0 {
			if p == s {
				continue
			}
			if r, _ := utf8.DecodeLastRuneInString(text[s:p]); isWordRune(r) {
				continue
			}
		}
		// After it: the end of the text, or a character that is not a
		// word character, which the match consumes.
		e := p + 1
		if e < len(text) {
			r, w := rune(text[e]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeRuneInString(text[e:])
			}
			if isWordRune(r) {
				continue
			}
			e += w
		}
		found = append(found, p)
		s = e
		p = e - 1
	}
	return found
}

func isCapital(c byte) bool { return c >= 'A' && c <= 'Z' }

// isWordRune is the class [A-Za-z0-9'’].
func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '\'' || r == '’'
}

// optionText matches the response against the option texts: a response
// that is exactly one option, or that contains exactly one option's text
// (options contained in a longer matched option do not count separately).
func optionText(text string, choices []string) int {
	if len(choices) == 0 || !mayHoldChoice(text, choices) {
		return -1
	}
	norm := make([]string, len(choices))
	for i, c := range choices {
		norm[i] = foldText(c)
	}
	buf := foldPool.Get().(*[]byte)
	defer foldPool.Put(buf)
	// resp lives in *buf, and only while optionText runs.
	*buf = appendFold((*buf)[:0], text)
	resp := unsafe.String(unsafe.SliceData(*buf), len(*buf))
	if resp == "" {
		return -1
	}
	for i := range norm {
		if norm[i] == resp {
			return i
		}
	}
	var hits []int
	for i, c := range norm {
		// Very short options ("1", "No") match by accident inside prose.
		if utf8.RuneCountInString(c) < 2 || (isASCII(c) && len(c) < 3) {
			continue
		}
		if strings.Contains(resp, c) {
			hits = append(hits, i)
		}
	}
	var kept []int
	for _, i := range hits {
		contained := false
		for _, j := range hits {
			if i != j && norm[i] != norm[j] && strings.Contains(norm[j], norm[i]) {
				contained = true
				break
			}
		}
		if !contained {
			kept = append(kept, i)
		}
	}
	if len(kept) != 1 {
		return -1
	}
	return kept[0]
}

// mayHoldChoice reports whether optionText may find one of choices in
// text: whether foldText(text) may equal the folded text of one of
// them, or contain that of one long enough to be looked for inside it.
// False is exact (optionText returns -1), true may be wrong; text is not
// folded, nor are the choices.
//
// A choice of fewer than three ASCII bytes is only compared whole
// (optionText looks inside the response for choices of two characters or
// more, three bytes or more when ASCII), and its folded text has at most
// two bytes, which foldText(text) cannot equal when text holds three
// ASCII letters, digits or CJK ideographs (folding keeps each of them).
//
// Any other choice is equal to or contained in foldText(text) only if its
// longest run of [a-z0-9] or of CJK ideographs is in it. Folding
// lower-cases ASCII letters and turns white space into single spaces, so
// a run of [a-z0-9] in a folded choice comes from characters of text that
// match it ignoring ASCII case — unless text holds one of the two
// non-ASCII letters whose lower case is ASCII (U+0130 İ, U+212A K), when
// every choice may — and a run of CJK ideographs, which no other
// character lower-cases to and folding leaves as they are, from the same
// bytes of text. A choice with neither kind of run may match too.
//
// The longest run of [A-Za-z0-9] of a choice, lower-cased, is the longest
// run of [a-z0-9] of its folded text: folding turns no byte but an ASCII
// letter into [a-z0-9] (except U+0130 İ and U+212A K: a choice holding
// one is folded) and neither merges nor splits runs of them; so are its
// runs of ideographs (TestMayHoldChoice, FuzzOptionText).
func mayHoldChoice(text string, choices []string) bool {
	if strings.Contains(text, "\u0130") || strings.Contains(text, "\u212a") {
		return true
	}
	short := false
	var buf [64]byte
	for _, c := range choices {
		ascii := isASCII(c)
		if ascii && len(c) < 3 {
			short = true // only compared whole: below
			continue
		}
		var w string
		if !ascii && (strings.Contains(c, "\u0130") || strings.Contains(c, "\u212a")) {
			w = longestAlnumRun(foldText(c))
		} else {
			w = lowerASCIIInto(buf[:0], longestAlnumRunFold(c))
		}
		if !ascii {
			if h := longestCJKRun(c); len(h) > len(w) {
				if strings.Contains(text, h) {
					return true
				}
				continue
			}
		}
		if w == "" || containsFoldASCII(text, w) {
			return true
		}
	}
	return short && !foldLongerThan(text, 2)
}

// foldLongerThan reports whether foldText(text) is surely longer than n
// bytes: whether text holds more than n bytes of ASCII letters and digits
// and CJK ideographs, which folding keeps as they are (lower-cased).
func foldLongerThan(text string, n int) bool {
	k := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if l := c | 0x20; l >= 'a' && l <= 'z' || c >= '0' && c <= '9' {
				if k++; k > n {
					return true
				}
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(text[i:])
		if cjkRune(r) {
			if k += w; k > n {
				return true
			}
		}
		i += w
	}
	return false
}

// cjkRune reports whether r is a CJK unified ideograph (the basic block
// and extension A): characters without case that no other character
// lower-cases to, neither white space nor punctuation, three bytes in
// UTF-8 (TestCJKRunes).
func cjkRune(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF
}

// longestCJKRun is the longest run of CJK ideographs in s ("" when none),
// the first of the longest.
func longestCJKRun(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); {
		w := 1
		if i < len(s) {
			var r rune
			r, w = utf8.DecodeRuneInString(s[i:])
			if cjkRune(r) {
				if start < 0 {
					start = i
				}
				i += w
				continue
			}
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
		i += w
	}
	return best
}

// longestAlnumRunFold is the longest run of [A-Za-z0-9] in s ("" when
// none), the first of the longest.
func longestAlnumRunFold(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			c := s[i] | 0x20
			if c >= 'a' && c <= 'z' || s[i] >= '0' && s[i] <= '9' {
				if start < 0 {
					start = i
				}
				continue
			}
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

// lowerASCIIInto is s with ASCII letters lower-cased, in b's memory when
// it fits (the result lives only as long as b).
func lowerASCIIInto(b []byte, s string) string {
	if len(s) > cap(b) {
		return strings.ToLower(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// longestAlnumRun is the longest run of [a-z0-9] in s ("" when none).
func longestAlnumRun(s string) string {
	best, start := "", -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldPool holds optionText's buffers for the folded response.
var foldPool = sync.Pool{New: func() any { return new([]byte) }}

// foldText lower-cases, collapses white space and trims surrounding
// punctuation, so "The mitochondria." matches option "the mitochondria".
func foldText(s string) string {
	return string(appendFold(make([]byte, 0, len(s)+8), s))
}

// appendFold appends foldText(s) to b[:0]'s end (b must be empty): in one
// pass, strings.Fields joined with single spaces, then strings.ToLower
// (invalid UTF-8 becoming U+FFFD, as strings.Map writes it), then trimmed
// (refFoldText in the tests). ASCII bytes are handled without decoding.
func appendFold(b []byte, s string) []byte {
	pending := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case ' ', '\t', '\n', '\v', '\f', '\r':
				pending = len(b) > 0
				continue
			}
			if pending {
				b = append(b, ' ')
				pending = false
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		if unicode.IsSpace(r) {
			pending = len(b) > 0
			continue
		}
		if pending {
			b = append(b, ' ')
			pending = false
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	trim := func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || r == '*'
	}
	t := bytes.TrimFunc(b, trim)
	if len(t) == len(b) {
		return b
	}
	n := copy(b, t)
	return b[:n]
}
