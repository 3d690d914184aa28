package textstats

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// WordTokens splits text into word tokens the way nltk.word_tokenize does:
// Punkt sentences, then the improved Treebank rules (punctuation, brackets,
// quotes and English contractions become tokens of their own: "DON'T" is
// "DO" + "N'T", "I'M" is "I" + "'M"). IFEval's capital_word_frequency
// counts the tokens for which str.isupper() holds.
func WordTokens(text string) []string {
	var out []string
	for _, sent := range Sentences(text) {
		out = append(out, treebankTokens(sent)...)
	}
	return out
}

// CountWordTokens counts the tokens of WordTokens(text) for which pred
// holds, sentence by sentence, and stops as soon as the count reaches
// limit: it returns min(count, limit) (0 for a limit below 1), so that a
// caller that only compares the count with limit need not tokenize the
// rest.
func CountWordTokens(text string, pred func(string) bool, limit int) int {
	n := 0
	if limit < 1 {
		return 0
	}
	for _, sent := range Sentences(text) {
		for _, t := range treebankTokens(sent) {
			if pred(t) {
				if n++; n >= limit {
					return n
				}
			}
		}
	}
	return n
}

// CountUpperTokens is CountWordTokens(text, IsUpper, limit): the number of
// word tokens for which str.isupper() holds, up to limit (IFEval's
// capital_word_frequency). Most texts reach the limit among their
// whitespace-separated chunks that are upper-case themselves, and then no
// sentence is split nor tokenized: every token lies within one chunk (the
// sentence splitter and the Treebank rules only cut text and put spaces
// in; the only characters they replace are quotes, which have no case),
// every character of a chunk is in one of its tokens, so a chunk whose
// cased characters are all upper-case, one at least, gives at least one
// upper-case token, and the number of such chunks is a lower bound of the
// count. Below the limit it counts as CountWordTokens does
// (TestCountUpperTokens, FuzzCountUpperTokens).
func CountUpperTokens(text string, limit int) int {
	if limit < 1 {
		return 0
	}
	if upperChunksReach(text, limit) {
		return limit
	}
	return CountWordTokens(text, IsUpper, limit)
}

// upperChunksReach reports whether at least limit of the chunks of
// Fields(text) are upper-case (IsUpper).
func upperChunksReach(text string, limit int) bool {
	n := 0
	upper, other := false, false // the chunk has an upper-case; a lower- or titlecase character
	end := func() bool {
		if upper && !other {
			n++
		}
		upper, other = false, false
		return n >= limit
	}
	for i := 0; i < len(text); {
		r, w := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, w = utf8.DecodeRuneInString(text[i:])
		}
		i += w
		switch {
		case IsSpace(r):
			if end() {
				return true
			}
		case IsLowerRune(r) || isTitleRune(r):
			other = true
		case IsUpperRune(r):
			upper = true
		}
	}
	return end()
}

// The Treebank rules below are nltk's TreebankWordTokenizer regular
// expressions (the improved ones that word_tokenize uses), each applied to
// the whole sentence in nltk's order, written out as scans: the same
// leftmost, non-overlapping matches and the same replacements, about ten
// times faster than Go's regexp. tokenize_ref_test.go keeps the
// regular expressions, and FuzzTreebankTokens checks that both agree.

// spaceAround puts a space before and after every character of s in set
// (nltk's r" \g<0> " rules over a character class).
func spaceAround(s, set string) string {
	if !strings.ContainsAny(s, set) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 && r == utf8.RuneError || !strings.ContainsRune(set, r) {
			b.WriteString(s[i : i+n])
		} else {
			b.WriteByte(' ')
			b.WriteString(s[i : i+n])
			b.WriteByte(' ')
		}
		i += n
	}
	return b.String()
}

// openingQuotes is ([«“‘„]|`+) → " $1 ".
func openingQuotes(s string) string {
	if !strings.ContainsAny(s, "«“‘„`") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		if s[i] == '`' {
			j := i
			for j < len(s) && s[j] == '`' {
				j++
			}
			b.WriteByte(' ')
			b.WriteString(s[i:j])
			b.WriteByte(' ')
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '«' || r == '“' || r == '‘' || r == '„' {
			b.WriteByte(' ')
			b.WriteString(s[i : i+n])
			b.WriteByte(' ')
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// quoteAfterOpener is the rule
//
//	([ (\[{<])("|'') → "$1 `` "
func quoteAfterOpener(s string) string {
	if !strings.ContainsAny(s, `"'`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if strings.IndexByte(" ([{<", c) >= 0 {
			m := 0
			if strings.HasPrefix(s[i+1:], `"`) {
				m = 1
			} else if strings.HasPrefix(s[i+1:], "''") {
				m = 2
			}
			if m > 0 {
				b.WriteByte(c)
				b.WriteString(" `` ")
				i += 1 + m
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// colonComma is ([:,])([^\p{Nd}]) → " $1 $2" followed by ([:,])$ → " $1 ".
func colonComma(s string) string {
	if !strings.ContainsAny(s, ":,") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if (c == ':' || c == ',') && i+1 < len(s) {
			r, n := utf8.DecodeRuneInString(s[i+1:])
			if n == 1 && r == utf8.RuneError || !unicode.Is(unicode.Nd, r) {
				b.WriteByte(' ')
				b.WriteByte(c)
				b.WriteByte(' ')
				b.WriteString(s[i+1 : i+1+n])
				i += 1 + n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	out := b.String()
	if strings.HasSuffix(out, ":") || strings.HasSuffix(out, ",") {
		out = out[:len(out)-1] + " " + out[len(out)-1:] + " "
	}
	return out
}

// dotRuns is \.{2,} → " $0 ".
func dotRuns(s string) string {
	if !strings.Contains(s, "..") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		if s[i] != '.' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '.' {
			j++
		}
		if j-i >= 2 {
			b.WriteByte(' ')
			b.WriteString(s[i:j])
			b.WriteByte(' ')
		} else {
			b.WriteByte('.')
		}
		i = j
	}
	return b.String()
}

// quoteBeforeSpace is ([^'])' → "$1 ' ".
func quoteBeforeSpace(s string) string {
	if !strings.Contains(s, "' ") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != '\'' && strings.HasPrefix(s[i+n:], "' ") {
			b.WriteString(s[i : i+n])
			b.WriteString(" ' ")
			i += n + 2
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// contractionSuffixes is nltk's two ENDING_QUOTES rules for clitics,
// applied one after the other:
// ([^' ])('[sS]|'[mM]|'[dD]|') → "$1 $2 ", then
// ([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) → "$1 $2 ".
func contractionSuffixes(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	return clitics(clitics(s, shortClitic), longClitic)
}

// shortClitic and longClitic return the length of the rule's $2 at the
// start of s when a space follows it, or 0.
func shortClitic(s string) int {
	if len(s) >= 3 && s[0] == '\'' && strings.IndexByte("sSmMdD", s[1]) >= 0 && s[2] == ' ' {
		return 2
	}
	if len(s) >= 2 && s[0] == '\'' && s[1] == ' ' {
		return 1
	}
	return 0
}

func longClitic(s string) int {
	if len(s) < 4 || s[3] != ' ' {
		return 0
	}
	switch s[:3] {
	case "'ll", "'LL", "'re", "'RE", "'ve", "'VE", "n't", "N'T":
		return 3
	}
	return 0
}

func clitics(s string, suffix func(string) int) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r != '\'' && r != ' ' {
			if m := suffix(s[i+n:]); m > 0 {
				if !changed {
					b.Grow(len(s) + 16)
					b.WriteString(s[:i])
					changed = true
				}
				b.WriteString(s[i : i+n])
				b.WriteByte(' ')
				b.WriteString(s[i+n : i+n+m])
				b.WriteByte(' ')
				i += n + m + 1
				continue
			}
		}
		if changed {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	if !changed {
		return s
	}
	return b.String()
}

// tbContractions are compiled on first use (not at package init of every
// command).
var tbContractions = sync.OnceValue(func() []contraction {
	// The contractions use Python's Unicode \b, which Go's regexp lacks:
	// each is a pattern plus the boundaries its match must sit between.
	return []contraction{
		{"cannot", regexp.MustCompile(`(?i)(can)(not)`), true, endWord},
		{"d'ye", regexp.MustCompile(`(?i)(d)('ye)`), true, endWord},
		{"gimme", regexp.MustCompile(`(?i)(gim)(me)`), true, endWord},
		{"gonna", regexp.MustCompile(`(?i)(gon)(na)`), true, endWord},
		{"gotta", regexp.MustCompile(`(?i)(got)(ta)`), true, endWord},
		{"lemme", regexp.MustCompile(`(?i)(lem)(me)`), true, endWord},
		{"more'n", regexp.MustCompile(`(?i)(more)('n)`), true, endWord},
		{"wanna", regexp.MustCompile(`(?i)(wan)(na)`), true, endSpace},
		{"'tis", regexp.MustCompile(`(?i) ('t)(is)`), false, endWord},
		{"'twas", regexp.MustCompile(`(?i) ('t)(was)`), false, endWord},
	}
})

// contraction is one of nltk's CONTRACTIONS2/3 rules: the two groups of
// re become separate tokens (" $1 $2 ").
type contraction struct {
	lower     string // the lower-case text the rule needs
	re        *regexp.Regexp
	startWord bool // \b before the match
	end       int  // endWord: \b after; endSpace: (?=\s) after
}

const (
	endWord = iota
	endSpace
)

// apply applies the rule to s, whose strings.ToLower is lower.
func (c contraction) apply(s, lower string) string {
	if !strings.Contains(lower, c.lower) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range c.re.FindAllStringSubmatchIndex(s, -1) {
		start, stop := m[0], m[1]
		if c.startWord {
			prev, _ := utf8.DecodeLastRuneInString(s[:start])
			if start > 0 && IsWordRune(prev) {
				continue
			}
		}
		next, _ := utf8.DecodeRuneInString(s[stop:])
		switch c.end {
		case endWord:
			if stop < len(s) && IsWordRune(next) {
				continue
			}
		case endSpace:
			if stop >= len(s) || !IsSpace(next) {
				continue
			}
		}
		b.WriteString(s[last:start])
		b.WriteString(" " + s[m[2]:m[3]] + " " + s[m[4]:m[5]] + " ")
		last = stop
	}
	b.WriteString(s[last:])
	return b.String()
}

// finalPeriod is the Treebank rule ([^.])(\.)([CLOSERS]*)\s*$ → "$1 $2 $3 ":
// a sentence-final period, followed only by closing brackets, quotes (and,
// for the first of nltk's two such rules, spaces and curly quotes), becomes
// a token of its own.
func finalPeriod(s, closers string) string {
	i := strings.LastIndexByte(s, '.')
	if i < 1 || s[i-1] == '.' {
		return s
	}
	rest := strings.TrimLeftFunc(s[i+1:], func(r rune) bool { return strings.ContainsRune(closers, r) })
	if strings.TrimFunc(rest, IsSpace) != "" {
		return s
	}
	return s[:i] + " . " + s[i+1:] + " "
}

const (
	closersFirst  = "])}>\"'»”’ "
	closersSecond = "])}>\"'"
)

// splitOpeningQuote is the rule (?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b → "' x":
// a quote before a one-character word that is not a contraction suffix.
func splitOpeningQuote(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] != '\'' {
			continue
		}
		rest := strings.ToLower(s[i+1:])
		skip := false
		for _, p := range []string{"re", "ve", "ll", "m", "t", "s", "d", "n"} {
			if strings.HasPrefix(rest, p) {
				skip = true
				break
			}
		}
		if skip {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i+1:])
		if n == 0 || !IsWordRune(r) {
			continue
		}
		next, _ := utf8.DecodeRuneInString(s[i+1+n:])
		if i+1+n < len(s) && IsWordRune(next) {
			continue
		}
		b.WriteByte(' ')
	}
	return b.String()
}

func treebankTokens(text string) []string {
	// STARTING_QUOTES
	text = openingQuotes(text)
	if strings.HasPrefix(text, `"`) {
		text = "``" + text[1:]
	}
	if strings.Contains(text, "``") {
		text = strings.ReplaceAll(text, "``", " `` ")
	}
	text = quoteAfterOpener(text)
	text = splitOpeningQuote(text)
	// PUNCTUATION
	text = finalPeriod(text, closersFirst)
	text = colonComma(text)
	text = dotRuns(text)
	text = spaceAround(text, ";@#$%&")
	text = finalPeriod(text, closersSecond)
	text = spaceAround(text, "?!")
	text = quoteBeforeSpace(text)
	text = spaceAround(text, "*")
	// PARENS_BRACKETS, DOUBLE_DASHES
	text = spaceAround(text, "[](){}<>")
	if strings.Contains(text, "--") {
		text = strings.ReplaceAll(text, "--", " -- ")
	}
	text = " " + text + " "
	// ENDING_QUOTES
	text = spaceAround(text, "»”’")
	if strings.Contains(text, "''") {
		text = strings.ReplaceAll(text, "''", " '' ")
	}
	if strings.Contains(text, `"`) {
		text = strings.ReplaceAll(text, `"`, " '' ")
	}
	text = contractionSuffixes(text)
	// CONTRACTIONS2, CONTRACTIONS3
	lower := strings.ToLower(text)
	for _, c := range tbContractions() {
		if t := c.apply(text, lower); t != text {
			text, lower = t, strings.ToLower(t)
		}
	}
	return Fields(text)
}
