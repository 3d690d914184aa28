package choice

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// The reference: extraction exactly as it was written with regular
// expressions throughout — no prefilters, standalone letters by FindAll.
var refLone = regexp.MustCompile(`(?:^|[^A-Za-z0-9'’])([A-Z])(?:[^A-Za-z0-9'’]|$)`)

func refUniqueLetter(re *regexp.Regexp, text string, n int, prose bool) int {
	got := -1
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

// refUniqueLone is refUniqueLetter over refLone with the formula rule.
func refUniqueLone(text string, n int) int {
	got := -1
	for _, m := range refLone.FindAllStringSubmatchIndex(text, -1) {
		l := text[m[2]:m[3]]
		if isProseWord(l, text[m[3]:]) || inFormula(text, m[2]) {
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

func refExtractStrict(text string, n int) Extraction {
	text = normalize(text)
	if e, ok := finalAnswer(text, n); ok {
		return e
	}
	pos, best := -1, -1
	for _, re := range []*regexp.Regexp{patterns().answerEN, patterns().answerZH} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			idx := LetterIndex(text[m[2]:m[3]])
			if idx < 0 || idx >= n {
				continue
			}
			if pos < 0 || m[0] < pos {
				pos, best = m[0], idx
			}
			break
		}
	}
	if pos < 0 {
		return none
	}
	return Extraction{Index: best, Letter: Letter(best), Method: MethodAnswerStatement}
}

func refExtractN(text string, n int, choices []string) Extraction {
	if e := refExtractStrict(text, n); e.Found() || e.Method != "" {
		return e
	}
	text = normalize(text)
	math := maskMath(text)
	found := func(idx int, method string) Extraction {
		return Extraction{Index: idx, Letter: Letter(idx), Method: method}
	}
	if idx := refUniqueLetter(patterns().selectZH, text, n, false); idx >= 0 {
		return found(idx, MethodChineseSelect)
	}
	if idx := refLeadingLetter(text, n); idx >= 0 {
		return found(idx, MethodLeadingLetter)
	}
	if idx := refUniqueLetter(patterns().mention, math, n, false); idx >= 0 {
		return found(idx, MethodMention)
	}
	if idx := refOptionText(text, choices); idx >= 0 {
		return found(idx, MethodOptionText)
	}
	if idx := refUniqueLone(math, n); idx >= 0 {
		return found(idx, MethodLoneLetter)
	}
	return none
}

// refOptionText is optionText over refFoldText.
func refOptionText(text string, choices []string) int {
	if len(choices) == 0 {
		return -1
	}
	resp := refFoldText(text)
	if resp == "" {
		return -1
	}
	norm := make([]string, len(choices))
	for i, c := range choices {
		norm[i] = refFoldText(c)
		if norm[i] == resp {
			return i
		}
	}
	var hits []int
	for i, c := range norm {
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

// refContainsFold is containsFoldASCII position by position.
func refContainsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// refFoldText is foldText as strings.Fields, Join, ToLower and TrimFunc
// compute it.
func refFoldText(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || r == '*'
	})
}

// pieces are fragments random responses are built from: the words and
// characters every rule looks for, and their near misses.
var pieces = []string{
	"A", "B", "C", "D", "E", "I", "a", "b", "x", "Z", " ", "  ", "\n", "\t", ".", ",", ":", "：", "'", "’", "\"",
	"(", ")", "[", "]", "（", "）", "【", "】", "*", "**", "-", "1", "42", "é", "日本", "\xff", "\xe2\x80", "\v", "\f", "\r", "!", "?", "$", "~", "_", "Paris", "paris.", "the mitochondria", "The Mitochondria.", "none of the above", "ANSWERS", "nswer", "answe", "OPTION", "opt", "Choice:", "W", "P",
	"answer", "Answer", "ANSWER", "anſwer", "answer is", "The answer is", "answer:", "would be", "is wrong",
	"option", "Option", "choice", "CHOICE", "选", "选项", "故选", "选择", "当选", "正确", "不正确", "符合题意",
	"答案", "答案是", "答案为", "应该", "项", "错", "排除", "Ｂ", "ｃ", "A good", "I think", "the ", "is ",
	"\u0085", "\u00a0", "\u3000", "。", "İ", "Σ", "ẞ", "\u2028", "\u212a", "K", "k", "Ｋ", "mitochondria", "MITO", "chondria", "none", "of", "ABOVE", "4", "2", "Pari", "ARIS",
}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(40) {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// TestExtractMatchesReference checks the fast extraction against the
// regular-expression reference on 20,000 random responses (2,000 with
// -short) made of the fragments the rules react to, and the
// standalone-letter scanner against FindAll directly. (200,000 passed
// when it was written.)
func TestExtractMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	choices := []string{"the mitochondria", "Paris", "42", "none of the above"}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		text := randomText(rng)
		var want []int
		for _, m := range refLone.FindAllStringSubmatchIndex(text, -1) {
			want = append(want, m[2])
		}
		if got := loneLetters(text); !slices.Equal(got, want) {
			t.Fatalf("loneLetters(%q) = %v, FindAll gives %v", text, got, want)
		}
		if got, want := foldText(text), refFoldText(text); got != want {
			t.Fatalf("foldText(%q) = %q, the reference gives %q", text, got, want)
		}
		for _, w := range []string{"answer", "option", "choice"} {
			if got, want := containsFoldASCII(text, w), refContainsFold(text, w); got != want {
				t.Fatalf("containsFoldASCII(%q, %q) = %v, reference %v", text, w, got, want)
			}
		}
		for _, k := range []int{2, 4, 10} {
			cs := choices
			if k != 4 {
				cs = nil
			}
			if got, want := ExtractN(text, k, cs), refExtractN(text, k, cs); got != want {
				t.Fatalf("ExtractN(%q, %d) = %+v, reference %+v", text, k, got, want)
			}
		}
	}
}

// TestMayHoldChoice: where mayHoldChoice says no option can be found,
// the reference finds none, and the extraction is the reference's, on
// random responses (short ones and 200-fragment ones) and random choices
// made of the fragments (capitals, İ, K, digits, punctuation, CJK).
func TestMayHoldChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 7))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	skipped := 0
	for k := range n {
		text := randomText(rng)
		if k%4 == 0 {
			text = longText(rng)
		}
		choices := randomChoices(rng)
		if !mayHoldChoice(text, choices) {
			skipped++
			if want := refOptionText(text, choices); want >= 0 {
				t.Fatalf("mayHoldChoice(%q, %q) = false, but the reference finds option %d", text, choices, want)
			}
		}
		if got, want := optionText(text, choices), refOptionText(text, choices); got != want {
			t.Fatalf("optionText(%q, %q) = %d, reference %d", text, choices, got, want)
		}
		if got, want := ExtractN(text, len(choices), choices), refExtractN(text, len(choices), choices); got != want {
			t.Fatalf("ExtractN(%q, %q) = %+v, reference %+v", text, choices, got, want)
		}
	}
	if skipped == 0 || skipped == n {
		t.Errorf("mayHoldChoice was false for %d of %d responses: the test exercises one side only", skipped, n)
	}
}

// cjkPieces are CJK fragments of choices: ideographs alone and in runs,
// with the punctuation and letters around them in Chinese options.
var cjkPieces = []string{"日本", "中国", "甲", "乙", "丙", "丁", "选项", "答案", "正确", "不", "，", "。", "（", "）", "㐀", "䶿", "鿿", "一", "ぁ", "가", "Ａ", "ｂ", "的"}

// randomChoices are two to five choices of one to four fragments each.
func randomChoices(rng *rand.Rand) []string {
	choices := make([]string, 2+rng.IntN(4))
	for i := range choices {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			if rng.IntN(3) == 0 {
				b.WriteString(cjkPieces[rng.IntN(len(cjkPieces))])
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		choices[i] = b.String()
	}
	return choices
}

// longText is a response of 200 fragments, a fifth of them CJK.
func longText(rng *rand.Rand) string {
	var b strings.Builder
	for range 200 {
		if rng.IntN(5) == 0 {
			b.WriteString(cjkPieces[rng.IntN(len(cjkPieces))])
		} else {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// TestCJKRunes checks, over every rune, what mayHoldChoice assumes of the
// ideographs cjkRune accepts: no other rune lower-cases to one, they lower-case
// to themselves, are neither white space nor punctuation nor '*' (folding
// neither trims nor collapses them) and are three bytes long.
func TestCJKRunes(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		l := unicode.ToLower(r)
		if cjkRune(l) && l != r {
			t.Fatalf("%U lower-cases to the ideograph %U", r, l)
		}
		if cjkRune(r) && (unicode.IsSpace(r) || unicode.IsPunct(r) || r == '*' || utf8.RuneLen(r) != 3) {
			t.Fatalf("ideograph %U is space, punctuation or not three bytes", r)
		}
	}
}

// FuzzOptionText checks optionText, its prefilter included, against the
// reference on arbitrary responses and choices.
func FuzzOptionText(f *testing.F) {
	f.Add("The answer is the mitochondria.", "the mitochondria", "Paris", "42", "none of the above")
	f.Add("我认为是日本的首都", "日本", "中国", "甲", "不正确")
	f.Add("İ K paris", "PARİS", "K", "a", "")
	f.Add(" **B** ", "B", "b", "1", "\xff")
	f.Fuzz(func(t *testing.T, text, a, b, c, d string) {
		for _, choices := range [][]string{{a, b, c, d}, {a, b}, {a}} {
			if got, want := optionText(text, choices), refOptionText(text, choices); got != want {
				t.Errorf("optionText(%q, %q) = %d, reference %d", text, choices, got, want)
			}
		}
	})
}

// FuzzLoneLetters checks the standalone-letter scan against FindAll on
// arbitrary texts.
func FuzzLoneLetters(f *testing.F) {
	for _, p := range pieces {
		f.Add(p + " A B’C\xe2\x80\x99D")
	}
	f.Fuzz(func(t *testing.T, text string) {
		var want []int
		for _, m := range refLone.FindAllStringSubmatchIndex(text, -1) {
			want = append(want, m[2])
		}
		if got := loneLetters(text); !slices.Equal(got, want) {
			t.Errorf("loneLetters(%q) = %v, FindAll gives %v", text, got, want)
		}
	})
}

// refLeadingLetter is leadingLetter without its prefilter (mayLead).
func refLeadingLetter(text string, n int) int {
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

// FuzzLeadingLetter checks leadingLetter's prefilter against the
// patterns on arbitrary texts.
func FuzzLeadingLetter(f *testing.F) {
	for _, p := range pieces {
		f.Add(" \t" + p + " B.")
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, n := range []int{2, 4, 26} {
			if got, want := leadingLetter(text, n), refLeadingLetter(text, n); got != want {
				t.Errorf("leadingLetter(%q, %d) = %d, the patterns give %d", text, n, got, want)
			}
		}
	})
}

// refFirstCapital is firstCapital asking textstats.IsUpper of every
// character.
func refFirstCapital(text string, choices []string) Extraction {
	for _, r := range text {
		if textstats.IsUpper(string(r)) {
			return letterResult(string(r), len(choices), RuleFirstCapital)
		}
	}
	return none
}

// FuzzFirstCapital checks firstCapital's ASCII shortcut against the
// general predicate on arbitrary texts.
func FuzzFirstCapital(f *testing.F) {
	for _, p := range append(pieces, cjkPieces...) {
		f.Add("naïve 日本 " + p + " Ⅻ ǅ ª")
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, n := range []int{2, 4, 26} {
			choices := make([]string, n)
			if got, want := firstCapital(text, choices), refFirstCapital(text, choices); got != want {
				t.Errorf("firstCapital(%q) = %+v, the predicate gives %+v", text, got, want)
			}
		}
	})
}
