package textstats

import (
	"regexp"
	"strings"
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

type rewrite struct {
	re   *regexp.Regexp
	repl string
}

func rw(pattern, repl string) rewrite { return rewrite{regexp.MustCompile(pattern), repl} }

// Each rewrite carries a cheap precondition (the characters its pattern
// needs) so that the regular expression only runs when it can match.
type guarded struct {
	rewrite
	need func(s string) bool
}

func anyOf(chars string) func(string) bool {
	return func(s string) bool { return strings.ContainsAny(s, chars) }
}

func substr(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

func g(need func(string) bool, pattern, repl string) guarded {
	return guarded{rw(pattern, repl), need}
}

var (
	tbStartingQuotes = []guarded{
		g(anyOf("«“‘„`"), "([«“‘„]|`+)", " $1 "),
		g(anyOf(`"`), `^"`, "``"),
		g(substr("``"), "(``)", " $1 "),
		g(anyOf(`"'`), `([ (\[{<])("|'')`, "$1 `` "),
	}
	tbPunctuation = []guarded{
		g(anyOf(":,"), `([:,])([^\p{Nd}])`, " $1 $2"),
		g(anyOf(":,"), `([:,])$`, " $1 "),
		g(substr(".."), `\.{2,}`, " $0 "),
		g(anyOf(";@#$%&"), `[;@#$%&]`, " $0 "),
	}
	tbPunctuation2 = []guarded{
		g(anyOf("?!"), `[?!]`, " $0 "),
		g(substr("' "), `([^'])' `, "$1 ' "),
		g(anyOf("*"), `[*]`, " $0 "),
		g(anyOf("[](){}<>"), `[\][(){}<>]`, " $0 "),
		g(substr("--"), `--`, " -- "),
	}
	tbEndingQuotes = []guarded{
		g(anyOf("»”’"), "([»”’])", " $1 "),
		g(substr("''"), `''`, " '' "),
		g(anyOf(`"`), `"`, " '' "),
		g(anyOf("'"), `([^' ])('[sS]|'[mM]|'[dD]|') `, "$1 $2 "),
		g(anyOf("'"), `([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `, "$1 $2 "),
	}
	// The contractions use Python's Unicode \b, which Go's regexp lacks:
	// each is a pattern plus the boundaries its match must sit between.
	tbContractions = []contraction{
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
)

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

func (c contraction) apply(s string) string {
	if !strings.Contains(strings.ToLower(s), c.lower) {
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

func applyAll(s string, rs []guarded) string {
	for _, r := range rs {
		if r.need(s) {
			s = r.re.ReplaceAllString(s, r.repl)
		}
	}
	return s
}

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
	text = applyAll(text, tbStartingQuotes)
	text = splitOpeningQuote(text)
	text = finalPeriod(text, closersFirst)
	text = applyAll(text, tbPunctuation)
	text = finalPeriod(text, closersSecond)
	text = applyAll(text, tbPunctuation2)
	text = " " + text + " "
	text = applyAll(text, tbEndingQuotes)
	for _, c := range tbContractions {
		text = c.apply(text)
	}
	return Fields(text)
}
