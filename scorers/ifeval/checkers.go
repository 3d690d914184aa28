package ifeval

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/scorers/langdetect"
	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// registry maps the 25 official instruction ids to their builders.
var registry = map[string]builder{
	"keywords:existence":                            buildKeywordExistence,
	"keywords:frequency":                            buildKeywordFrequency,
	"keywords:forbidden_words":                      buildForbiddenWords,
	"keywords:letter_frequency":                     buildLetterFrequency,
	"language:response_language":                    buildResponseLanguage,
	"length_constraints:number_sentences":           buildNumberSentences,
	"length_constraints:number_paragraphs":          buildNumberParagraphs,
	"length_constraints:number_words":               buildNumberWords,
	"length_constraints:nth_paragraph_first_word":   buildNthParagraphFirstWord,
	"detectable_content:number_placeholders":        buildPlaceholders,
	"detectable_content:postscript":                 buildPostscript,
	"detectable_format:number_bullet_lists":         buildBulletLists,
	"detectable_format:constrained_response":        buildConstrainedResponse,
	"detectable_format:number_highlighted_sections": buildHighlightedSections,
	"detectable_format:multiple_sections":           buildMultipleSections,
	"detectable_format:json_format":                 buildJSONFormat,
	"detectable_format:title":                       buildTitle,
	"combination:two_responses":                     buildTwoResponses,
	"combination:repeat_prompt":                     buildRepeatPrompt,
	"startend:end_checker":                          buildEndChecker,
	"startend:quotation":                            buildQuotation,
	"change_case:capital_word_frequency":            buildCapitalWordFrequency,
	"change_case:english_capital":                   buildEnglishCapital,
	"change_case:english_lowercase":                 buildEnglishLowercase,
	"punctuation:no_comma":                          buildNoComma,
}

// pyS is Python's `\s` for str patterns (Go's `\s` is ASCII only).
const pyS = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

// pyD is Python 3.11's `\d`: Unicode decimal digits (Nd) without the
// Kawi and Nag Mundari digits, which Unicode 15.0 added.
const pyD = `[^\P{Nd}\x{11F50}-\x{11F59}\x{1E4F0}-\x{1E4F9}]`

// compilePy compiles a pattern the official code builds from data
// (keywords, section splitters, postscript markers). Those are plain text
// in practice; one that is not valid Go syntax is matched literally.
// Expressions are compiled once per process and pattern (cachedRE): the
// prompts of a dataset repeat a few markers and splitters many times.
func compilePy(prefix, pattern, suffix string) *regexp.Regexp {
	key := pyKey{prefix, pattern, suffix}
	if re, ok := pyCache.Load(key); ok {
		return re.(*regexp.Regexp)
	}
	re, err := compileFold(prefix + pattern + suffix)
	if err != nil {
		re = regexp.MustCompile(prefix + regexp.QuoteMeta(pattern) + suffix)
	}
	v, _ := pyCache.LoadOrStore(key, re)
	return v.(*regexp.Regexp)
}

type pyKey struct{ prefix, pattern, suffix string }

// pyCache holds compilePy's expressions (a *regexp.Regexp is safe for
// concurrent use); its size is bounded by the distinct patterns of the
// datasets a process loads.
var pyCache sync.Map

// pyFoldSets are the letters that Python's re.IGNORECASE treats as equal
// and Go's (?i), which uses Unicode simple case folding, does not: sre also
// compares simple lower-case and upper-case mappings, so I, i, İ (lower
// i) and ı (upper I) all match each other, as do U+0390/U+1FD3 (ΐ),
// U+03B0/U+1FE3 (ΰ) and the ligatures ﬅ/ﬆ. These are all the differences
// over every cased code point (Python 3.11).
var pyFoldSets = [][]rune{{'I', 'i', '\u0130', '\u0131'}, {'\u0390', '\u1fd3'}, {'\u03b0', '\u1fe3'}, {'\ufb05', '\ufb06'}}

func pyFoldSet(r rune) []rune {
	for _, set := range pyFoldSets {
		if slices.Contains(set, r) {
			return set
		}
	}
	return nil
}

// compileFold compiles expr; when expr starts with (?i), its literals get
// Python's equivalences (pyFoldSets). Character classes keep Go's folding.
func compileFold(expr string) (*regexp.Regexp, error) {
	if !strings.ContainsFunc(expr, func(r rune) bool { return pyFoldSet(r) != nil }) || !strings.HasPrefix(expr, "(?i)") {
		return regexp.Compile(expr)
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	addPyFolds(tree)
	return regexp.Compile(tree.String())
}

func addPyFolds(re *syntax.Regexp) {
	for _, sub := range re.Sub {
		addPyFolds(sub)
	}
	// Not re.Flags&syntax.FoldCase: the parser drops it from letters
	// without a Unicode case orbit, such as ΐ.
	if re.Op != syntax.OpLiteral || !slices.ContainsFunc(re.Rune, func(r rune) bool { return pyFoldSet(r) != nil }) {
		return
	}
	var subs []*syntax.Regexp
	for _, r := range re.Rune {
		set := pyFoldSet(r)
		if set == nil {
			subs = append(subs, &syntax.Regexp{Op: syntax.OpLiteral, Flags: re.Flags, Rune: []rune{r}})
			continue
		}
		class := &syntax.Regexp{Op: syntax.OpCharClass}
		for _, m := range set {
			class.Rune = append(class.Rune, m, m)
		}
		subs = append(subs, class)
	}
	*re = syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: subs}
}

// --- keywords -------------------------------------------------------------

func buildKeywordExistence(id string, kw kwargs, _ Config) (Checker, error) {
	words, err := kw.strings(id, "keywords")
	if err != nil {
		return nil, err
	}
	kws := make([]*keyword, len(words))
	for i, w := range words {
		kws[i] = newKeyword(w)
	}
	return checkFunc(func(s string) bool {
		var t textFold
		for _, k := range kws {
			if !k.containsIn(&t, s) {
				return false
			}
		}
		return true
	}), nil
}

func buildKeywordFrequency(id string, kw kwargs, _ Config) (Checker, error) {
	word, err := kw.str(id, "keyword")
	if err != nil {
		return nil, err
	}
	freq, err := kw.integer(id, "frequency")
	if err != nil {
		return nil, err
	}
	rel, err := kw.relation(id, "relation")
	if err != nil {
		return nil, err
	}
	k := newKeyword(textstats.Strip(word))
	return checkFunc(func(s string) bool {
		return rel.holds(k.count(s), freq)
	}), nil
}

func buildForbiddenWords(id string, kw kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	words, err := kw.strings(id, "forbidden_words")
	if err != nil {
		return nil, err
	}
	type fw struct {
		k       *keyword
		bounded bool
	}
	var fws []fw
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] {
			continue
		}
		seen[w] = true
		// Chinese has no spaces between words, so `\b` would only match a
		// forbidden Chinese word standing alone; zh matches it anywhere.
		bounded := !(lang == Chinese && containsCJK(w))
		fws = append(fws, fw{newKeyword(w), bounded})
	}
	return checkFunc(func(s string) bool {
		var t textFold
		for _, f := range fws {
			if f.bounded {
				if f.k.boundedIn(&t, s) {
					return false
				}
			} else if f.k.re().MatchString(s) {
				return false
			}
		}
		return true
	}), nil
}

// findBounded reports whether re matches s between two Python `\b` word
// boundaries (the official r"\b" + word + r"\b").
func findBounded(re *regexp.Regexp, s string) bool {
	pos := 0
	for pos <= len(s) {
		loc := re.FindStringIndex(s[pos:])
		if loc == nil {
			return false
		}
		start, end := pos+loc[0], pos+loc[1]
		if isBoundary(s, start) && isBoundary(s, end) && end > start {
			return true
		}
		if start >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[start:])
		pos = start + n
	}
	return false
}

// isBoundary is Python's `\b` at byte offset i.
func isBoundary(s string, i int) bool {
	before, after := false, false
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		before = textstats.IsWordRune(r)
	}
	if i < len(s) {
		r, _ := utf8.DecodeRuneInString(s[i:])
		after = textstats.IsWordRune(r)
	}
	return before != after
}

func buildLetterFrequency(id string, kw kwargs, _ Config) (Checker, error) {
	letter, err := kw.str(id, "letter")
	if err != nil {
		return nil, err
	}
	freq, err := kw.integer(id, "let_frequency")
	if err != nil {
		return nil, err
	}
	rel, err := kw.relation(id, "let_relation")
	if err != nil {
		return nil, err
	}
	if letter == "" {
		return nil, &KwargError{id, "letter", "empty"}
	}
	// The official checker counts any single character, letters or not
	// (older versions replaced a non-letter by a random letter; pocketeval
	// counts the character given): letter.strip().lower(), then
	// collections.Counter(value.lower())[letter], which counts one code
	// point and is 0 for anything else ("", or "i̇" from "İ"). A longer
	// "letter" is counted as a substring (the official code would pick a
	// random letter).
	single := utf8.RuneCountInString(letter) == 1
	letter = textstats.Lower(textstats.Strip(letter))
	if single && utf8.RuneCountInString(letter) != 1 {
		letter = ""
	}
	return checkFunc(func(s string) bool {
		n := 0
		if letter != "" {
			n = strings.Count(textstats.Lower(s), letter)
		}
		return rel.holds(n, freq)
	}), nil
}

// --- language and case ----------------------------------------------------

// The official checkers call langdetect.detect(value) inside a try block:
// LangDetectException ("No features in text") counts as followed.

// detectors holds one langdetect Detector per seed.
var detectors sync.Map // uint64 → *langdetect.Detector

func detector(seed uint64) (*langdetect.Detector, error) {
	// Load the profiles now, so that a checker never meets an error
	// other than "no features" while judging.
	if err := langdetect.Load(); err != nil {
		return nil, err
	}
	if d, ok := detectors.Load(seed); ok {
		return d.(*langdetect.Detector), nil
	}
	d, _ := detectors.LoadOrStore(seed, langdetect.New(seed))
	return d.(*langdetect.Detector), nil
}

// detectedAs reports whether langdetect names s's language one of codes,
// or finds no features in s.
func detectedAs(d *langdetect.Detector, s string, codes ...string) bool {
	got, err := d.Detect(s)
	if errors.Is(err, langdetect.ErrNoFeatures) {
		return true
	}
	if err != nil {
		// Unreachable: detector() loaded the profiles.
		panic(fmt.Sprintf("ifeval: langdetect: %v", err))
	}
	for _, c := range codes {
		if got == c {
			return true
		}
	}
	return false
}

func buildResponseLanguage(id string, kw kwargs, cfg Config) (Checker, error) {
	code, err := kw.str(id, "language")
	if err != nil {
		return nil, err
	}
	d, err := detector(cfg.LangdetectSeed)
	if err != nil {
		return nil, err
	}
	codes := []string{code}
	if cfg.Lang == Chinese && code == "zh" {
		// pocketeval's IFEval-zh extension: langdetect never says "zh".
		codes = []string{"zh-cn", "zh-tw"}
	}
	return checkFunc(func(s string) bool { return detectedAs(d, s, codes...) }), nil
}

func buildEnglishCapital(_ string, _ kwargs, cfg Config) (Checker, error) {
	d, err := detector(cfg.LangdetectSeed)
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		return textstats.IsUpper(s) && detectedAs(d, s, "en")
	}), nil
}

func buildEnglishLowercase(_ string, _ kwargs, cfg Config) (Checker, error) {
	d, err := detector(cfg.LangdetectSeed)
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		return textstats.IsLower(s) && detectedAs(d, s, "en")
	}), nil
}

func buildCapitalWordFrequency(id string, kw kwargs, _ Config) (Checker, error) {
	freq, err := kw.integer(id, "capital_frequency")
	if err != nil {
		return nil, err
	}
	rel, err := kw.relation(id, "capital_relation")
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		// Both relations hold or fail alike for every count from freq up,
		// so counting stops there.
		if freq <= 0 || !strings.ContainsFunc(s, textstats.IsUpperRune) {
			return rel.holds(0, freq)
		}
		return rel.holds(textstats.CountUpperTokens(s, freq), freq)
	}), nil
}

// --- length constraints ---------------------------------------------------

func containsCJK(s string) bool {
	for _, r := range s {
		if textstats.IsCJK(r) {
			return true
		}
	}
	return false
}

func countSentences(s string, lang Lang) int {
	if lang == Chinese && containsCJK(s) {
		return textstats.CountSentencesZh(s)
	}
	return textstats.CountSentences(s)
}

func buildNumberSentences(id string, kw kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	n, err := kw.integer(id, "num_sentences")
	if err != nil {
		return nil, err
	}
	rel, err := kw.relation(id, "relation")
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool { return rel.holds(countSentences(s, lang), n) }), nil
}

func buildNumberWords(id string, kw kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	n, err := kw.integer(id, "num_words")
	if err != nil {
		return nil, err
	}
	rel, err := kw.relation(id, "relation")
	if err != nil {
		return nil, err
	}
	count := textstats.CountWords
	if lang == Chinese {
		count = textstats.CountWordsZh
	}
	return checkFunc(func(s string) bool { return rel.holds(count(s), n) }), nil
}

var paragraphDivider = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pyS + `?\*\*\*` + pyS + `?`) })

// splitParagraphs is paragraphDivider().Split(s, -1) (re.split(r"\s?\*\*\*\s?",
// s)) written as a scan: the leftmost match starts at the first "***" not
// yet consumed, or at the whitespace character just before it when that
// character was not consumed either, and takes one whitespace character
// after it if there is one. TestSplitParagraphs and FuzzSplitParagraphs
// compare it with the expression.
func splitParagraphs(s string) []string {
	var parts []string
	beg := 0
	for {
		i := strings.Index(s[beg:], "***")
		if i < 0 {
			break
		}
		at := beg + i
		start := at
		if r, n := utf8.DecodeLastRuneInString(s[beg:at]); n > 0 && textstats.IsSpace(r) {
			start = at - n
		}
		end := at + 3
		if r, n := utf8.DecodeRuneInString(s[end:]); n > 0 && textstats.IsSpace(r) {
			end += n
		}
		parts = append(parts, s[beg:start])
		beg = end
	}
	return append(parts, s[beg:])
}

func buildNumberParagraphs(id string, kw kwargs, _ Config) (Checker, error) {
	want, err := kw.integer(id, "num_paragraphs")
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		parts := splitParagraphs(s)
		n := len(parts)
		for i, p := range parts {
			if textstats.Strip(p) == "" {
				if i == 0 || i == len(parts)-1 {
					n--
				} else {
					return false
				}
			}
		}
		return n == want
	}), nil
}

// leadingQuotes are stripped before a Chinese first word is compared.
const leadingQuotes = "\"'“‘「『《【（("

func buildNthParagraphFirstWord(id string, kw kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	num, err := kw.integer(id, "num_paragraphs")
	if err != nil {
		return nil, err
	}
	nth, err := kw.integer(id, "nth_paragraph")
	if err != nil {
		return nil, err
	}
	first, err := kw.str(id, "first_word")
	if err != nil {
		return nil, err
	}
	first = textstats.Lower(first)
	cjkFirst := lang == Chinese && containsCJK(first)
	return checkFunc(func(s string) bool {
		paragraphs := strings.Split(s, "\n\n")
		n := len(paragraphs)
		for _, p := range paragraphs {
			if textstats.Strip(p) == "" {
				n--
			}
		}
		if nth > n || nth < 1 {
			return false
		}
		p := textstats.Strip(paragraphs[nth-1])
		if p == "" {
			return false
		}
		if cjkFirst {
			p = strings.TrimLeft(p, leadingQuotes+" \t")
			return n == num && strings.HasPrefix(textstats.Lower(p), first)
		}
		word := textstats.Fields(p)[0]
		word = strings.TrimLeft(word, "'")
		word = strings.TrimLeft(word, `"`)
		var b strings.Builder
		for _, r := range word {
			if strings.ContainsRune(`.,?!'"`, r) {
				break
			}
			b.WriteString(textstats.Lower(string(r)))
		}
		return n == num && b.String() == first
	}), nil
}

// --- detectable content ---------------------------------------------------

var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[.*?\]`) })

func buildPlaceholders(id string, kw kwargs, _ Config) (Checker, error) {
	n, err := kw.integer(id, "num_placeholders")
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		return len(placeholderRE().FindAllStringIndex(s, -1)) >= n
	}), nil
}

func buildPostscript(id string, kw kwargs, _ Config) (Checker, error) {
	marker, err := kw.str(id, "postscript_marker")
	if err != nil {
		return nil, err
	}
	marker = textstats.Strip(marker)
	return checkFunc(postscriptMatcher(marker)), nil
}

// postscriptMatcher returns the official check, re.search(r"\s*" + marker
// + ".*$", value.lower(), flags=re.MULTILINE) (with the official special
// patterns of P.P.S and P.S.), without the leading \s*: whitespace that
// may match nothing does not decide whether there is a match, and without
// it the expression starts with a literal that the matcher can look for
// directly, where the class made it try every position. A marker that is
// plain text is looked for as text (.*$ matches at any position).
// postscriptRE keeps the official form, which TestFastMatchers compares.
func postscriptMatcher(marker string) func(string) bool {
	lower := textstats.Lower(marker)
	var re func() *regexp.Regexp
	switch {
	case marker == "P.P.S":
		re = sync.OnceValue(func() *regexp.Regexp {
			return compilePy(`(?m)p\.`+pyS+`?p\.`+pyS+`?s.*$`, "", "")
		})
	case marker == "P.S.":
		re = sync.OnceValue(func() *regexp.Regexp { return compilePy(`(?m)p\.`+pyS+`?s\..*$`, "", "") })
	case regexp.QuoteMeta(lower) == lower:
		return func(s string) bool { return strings.Contains(textstats.Lower(s), lower) }
	default:
		re = sync.OnceValue(func() *regexp.Regexp { return postscriptRE(marker) })
	}
	return func(s string) bool { return re().MatchString(textstats.Lower(s)) }
}

// postscriptRE is the official expression of marker.
func postscriptRE(marker string) *regexp.Regexp {
	switch marker {
	case "P.P.S":
		return compilePy(`(?m)`+pyS+`*p\.`+pyS+`?p\.`+pyS+`?s.*$`, "", "")
	case "P.S.":
		return compilePy(`(?m)`+pyS+`*p\.`+pyS+`?s\..*$`, "", "")
	}
	return compilePy(`(?m)`+pyS+`*`, textstats.Lower(marker), `.*$`)
}

// --- detectable format ----------------------------------------------------

var (
	bulletStarRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^` + pyS + `*\*[^*].*$`) })
	bulletDashRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^` + pyS + `*-.*$`) })
)

// countBullets is len(bulletStarRE().FindAllStringIndex(s, -1)) for
// marker '*' and the same with bulletDashRE for '-', written as a scan
// (the expressions' leading whitespace class made the matcher try every
// position). A match starts at a line start (position 0 or after a
// newline) from which the longest run of whitespace, newlines included, is
// followed by the marker (for '*', then by one character that is not '*',
// a newline included); it ends before the next newline or at the end. The
// next match is looked for from there. TestCountBullets and
// FuzzCountBullets compare it with the expressions.
func countBullets(s string, marker byte) int {
	n := 0
	for p := 0; p <= len(s); {
		q := p
		for q < len(s) {
			r, w := utf8.DecodeRuneInString(s[q:])
			if !textstats.IsSpace(r) {
				break
			}
			q += w
		}
		k := -1
		if q < len(s) && s[q] == marker {
			k = q + 1
			if marker == '*' {
				if r, w := utf8.DecodeRuneInString(s[k:]); w > 0 && r != '*' {
					k += w
				} else {
					k = -1
				}
			}
		}
		if k >= 0 {
			n++
			e := len(s)
			if i := strings.IndexByte(s[k:], '\n'); i >= 0 {
				e = k + i
			}
			// A line start at e is followed by the newline at e, so the
			// next line start sees the same whitespace run.
			p = e
		}
		i := strings.IndexByte(s[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return n
}

func buildBulletLists(id string, kw kwargs, _ Config) (Checker, error) {
	n, err := kw.integer(id, "num_bullets")
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		return countBullets(s, '*')+countBullets(s, '-') == n
	}), nil
}

var (
	constrainedOptions   = []string{"My answer is yes.", "My answer is no.", "My answer is maybe."}
	constrainedOptionsZh = []string{"我的答案是肯定的", "我的答案是否定的", "我的答案是可能", "我的答案是也许"}
)

func buildConstrainedResponse(_ string, _ kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	return checkFunc(func(s string) bool {
		s = textstats.Strip(s)
		for _, o := range constrainedOptions {
			if strings.Contains(s, o) {
				return true
			}
		}
		if lang == Chinese {
			for _, o := range constrainedOptionsZh {
				if strings.Contains(s, o) {
					return true
				}
			}
		}
		return false
	}), nil
}

var (
	highlightRE       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*[^\n*]*\*`) })
	doubleHighlightRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*[^\n*]*\*\*`) })
)

func buildHighlightedSections(id string, kw kwargs, _ Config) (Checker, error) {
	n, err := kw.integer(id, "num_highlights")
	if err != nil {
		return nil, err
	}
	return checkFunc(func(s string) bool {
		got := 0
		for _, h := range highlightRE().FindAllString(s, -1) {
			if textstats.Strip(strings.Trim(h, "*")) != "" {
				got++
			}
		}
		for _, h := range doubleHighlightRE().FindAllString(s, -1) {
			if textstats.Strip(h[2:len(h)-2]) != "" {
				got++
			}
		}
		return got >= n
	}), nil
}

// zhNumber is a number in Arabic or Chinese numerals.
const zhNumber = `(?:` + pyD + `+|[零〇一二三四五六七八九十百两]+)`

func buildMultipleSections(id string, kw kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	spliter, err := kw.str(id, "section_spliter")
	if err != nil {
		return nil, err
	}
	n, err := kw.integer(id, "num_sections")
	if err != nil {
		return nil, err
	}
	spliter = textstats.Strip(spliter)
	re := sync.OnceValue(func() *regexp.Regexp {
		if lang == Chinese {
			// "SECTION 1", "受众一" and "第1天" / "第一天" all mark a section.
			q := regexp.QuoteMeta(spliter)
			return regexp.MustCompile(`第` + pyS + `?` + zhNumber + pyS + `?` + q + `|` + q + pyS + `?` + zhNumber)
		}
		if spliter != "" && regexp.QuoteMeta(spliter) == spliter {
			// Without the leading \s?, which the plain-text splitter
			// cannot start with, every match ends where the official
			// one does (the count is the same) and the expression starts
			// with a literal (TestFastMatchers).
			return compilePy("", spliter, pyS+`?`+pyD+`+`+pyS+`?`)
		}
		return sectionRE(spliter)
	})
	return checkFunc(func(s string) bool {
		return len(re().FindAllStringIndex(s, -1)) >= n
	}), nil
}

// sectionRE is the official expression of a section splitter.
func sectionRE(spliter string) *regexp.Regexp {
	return compilePy(pyS+`?`, spliter, pyS+`?`+pyD+`+`+pyS+`?`)
}

func buildJSONFormat(string, kwargs, Config) (Checker, error) {
	return checkFunc(func(s string) bool {
		s = textstats.Strip(s)
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```Json")
		s = strings.TrimPrefix(s, "```JSON")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(s, "```")
		s = textstats.Strip(s)
		return json.Valid([]byte(s)) || pythonJSONExtension(s)
	}), nil
}

// pythonJSONExtension accepts the non-standard constants Python's json
// module parses (NaN, Infinity, -Infinity) by validating the text with them
// replaced by null outside strings. null, unlike a number, cannot join a
// neighbouring number or minus sign into a valid one: "1NaN", "-NaN" and
// "1.5Infinity" stay invalid, as in Python.
func pythonJSONExtension(s string) bool {
	if !strings.Contains(s, "NaN") && !strings.Contains(s, "Infinity") {
		return false
	}
	var b strings.Builder
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			b.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case strings.HasPrefix(s[i:], "NaN"):
			b.WriteString("null")
			i += 2
		case strings.HasPrefix(s[i:], "-Infinity"):
			b.WriteString("null")
			i += 8
		case strings.HasPrefix(s[i:], "Infinity"):
			b.WriteString("null")
			i += 7
		default:
			b.WriteByte(c)
		}
	}
	return json.Valid([]byte(b.String()))
}

var titleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<[^\n]+>>`) })

func buildTitle(string, kwargs, Config) (Checker, error) {
	return checkFunc(func(s string) bool {
		for _, t := range titleRE().FindAllString(s, -1) {
			if textstats.Strip(strings.TrimRight(strings.TrimLeft(t, "<"), ">")) != "" {
				return true
			}
		}
		return false
	}), nil
}

// --- combination ----------------------------------------------------------

func buildTwoResponses(string, kwargs, Config) (Checker, error) {
	return checkFunc(func(s string) bool {
		parts := strings.Split(s, "******")
		var valid []string
		for i, p := range parts {
			if textstats.Strip(p) == "" {
				if i != 0 && i != len(parts)-1 {
					return false
				}
			} else {
				valid = append(valid, p)
			}
		}
		return len(valid) == 2 && textstats.Strip(valid[0]) != textstats.Strip(valid[1])
	}), nil
}

func buildRepeatPrompt(id string, kw kwargs, _ Config) (Checker, error) {
	p, err := kw.str(id, "prompt_to_repeat")
	if err != nil {
		return nil, err
	}
	prefix := textstats.Lower(textstats.Strip(p))
	return checkFunc(func(s string) bool {
		return strings.HasPrefix(textstats.Lower(textstats.Strip(s)), prefix)
	}), nil
}

// --- start / end ----------------------------------------------------------

func buildEndChecker(id string, kw kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	phrase, err := kw.str(id, "end_phrase")
	if err != nil {
		return nil, err
	}
	phrase = textstats.Lower(textstats.Strip(phrase))
	return checkFunc(func(s string) bool {
		s = textstats.Strip(s)
		if lang == Chinese {
			s = strings.Trim(s, "\"“”")
		} else {
			s = strings.Trim(s, `"`)
		}
		return strings.HasSuffix(textstats.Lower(s), phrase)
	}), nil
}

func buildQuotation(_ string, _ kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	return checkFunc(func(s string) bool {
		s = textstats.Strip(s)
		if textstats.RuneLen(s) <= 1 {
			return false
		}
		first, _ := utf8.DecodeRuneInString(s)
		last, _ := utf8.DecodeLastRuneInString(s)
		if first == '"' && last == '"' {
			return true
		}
		return lang == Chinese && (first == '“' && last == '”' || first == '＂' && last == '＂')
	}), nil
}

// --- punctuation ----------------------------------------------------------

func buildNoComma(_ string, _ kwargs, cfg Config) (Checker, error) {
	lang := cfg.Lang
	commas := ","
	if lang == Chinese {
		// ASCII and full-width commas, the enumeration comma 、 and their
		// small and half-width forms.
		commas = ",，、﹐﹑､"
	}
	return checkFunc(func(s string) bool { return !strings.ContainsAny(s, commas) }), nil
}
