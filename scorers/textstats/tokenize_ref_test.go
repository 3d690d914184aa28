package textstats

// The regular-expression Treebank tokenizer that tokenize.go replaced,
// kept as the reference that FuzzTreebankTokens compares it with.

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func refWordTokens(text string) []string {
	var out []string
	for _, sent := range Sentences(text) {
		out = append(out, refTreebankTokens(sent)...)
	}
	return out
}

type refRewrite struct {
	re   *regexp.Regexp
	repl string
}

func refRW(pattern, repl string) refRewrite { return refRewrite{regexp.MustCompile(pattern), repl} }

// Each refRewrite carries a cheap precondition (the characters its pattern
// needs) so that the regular expression only runs when it can match.
type refGuarded struct {
	refRewrite
	need func(s string) bool
}

func refAnyOf(chars string) func(string) bool {
	return func(s string) bool { return strings.ContainsAny(s, chars) }
}

func refSubstr(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

func refG(need func(string) bool, pattern, repl string) refGuarded {
	return refGuarded{refRW(pattern, repl), need}
}

var (
	refStartingQuotes = []refGuarded{
		refG(refAnyOf("«“‘„`"), "([«“‘„]|`+)", " $1 "),
		refG(refAnyOf(`"`), `^"`, "``"),
		refG(refSubstr("``"), "(``)", " $1 "),
		refG(refAnyOf(`"'`), `([ (\[{<])("|'')`, "$1 `` "),
	}
	refPunctuation = []refGuarded{
		refG(refAnyOf(":,"), `([:,])([^\p{Nd}])`, " $1 $2"),
		refG(refAnyOf(":,"), `([:,])$`, " $1 "),
		refG(refSubstr(".."), `\.{2,}`, " $0 "),
		refG(refAnyOf(";@#$%&"), `[;@#$%&]`, " $0 "),
	}
	refPunctuation2 = []refGuarded{
		refG(refAnyOf("?!"), `[?!]`, " $0 "),
		refG(refSubstr("' "), `([^'])' `, "$1 ' "),
		refG(refAnyOf("*"), `[*]`, " $0 "),
		refG(refAnyOf("[](){}<>"), `[\][(){}<>]`, " $0 "),
		refG(refSubstr("--"), `--`, " -- "),
	}
	refEndingQuotes = []refGuarded{
		refG(refAnyOf("»”’"), "([»”’])", " $1 "),
		refG(refSubstr("''"), `''`, " '' "),
		refG(refAnyOf(`"`), `"`, " '' "),
		refG(refAnyOf("'"), `([^' ])('[sS]|'[mM]|'[dD]|') `, "$1 $2 "),
		refG(refAnyOf("'"), `([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) `, "$1 $2 "),
	}
	// The contractions use Python's Unicode \b, which Go's regexp lacks:
	// each is a pattern plus the boundaries its match must sit between.
	refContractions = []refContraction{
		{"cannot", regexp.MustCompile(`(?i)(can)(not)`), true, refEndWord},
		{"d'ye", regexp.MustCompile(`(?i)(d)('ye)`), true, refEndWord},
		{"gimme", regexp.MustCompile(`(?i)(gim)(me)`), true, refEndWord},
		{"gonna", regexp.MustCompile(`(?i)(gon)(na)`), true, refEndWord},
		{"gotta", regexp.MustCompile(`(?i)(got)(ta)`), true, refEndWord},
		{"lemme", regexp.MustCompile(`(?i)(lem)(me)`), true, refEndWord},
		{"more'n", regexp.MustCompile(`(?i)(more)('n)`), true, refEndWord},
		{"wanna", regexp.MustCompile(`(?i)(wan)(na)`), true, refEndSpace},
		{"'tis", regexp.MustCompile(`(?i) ('t)(is)`), false, refEndWord},
		{"'twas", regexp.MustCompile(`(?i) ('t)(was)`), false, refEndWord},
	}
)

// refContraction is one of nltk's CONTRACTIONS2/3 rules: the two groups of
// re become separate tokens (" $1 $2 ").
type refContraction struct {
	lower     string // the lower-case text the rule needs
	re        *regexp.Regexp
	startWord bool // \b before the match
	end       int  // refEndWord: \b after; refEndSpace: (?=\s) after
}

const (
	refEndWord = iota
	refEndSpace
)

func (c refContraction) apply(s string) string {
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
		case refEndWord:
			if stop < len(s) && IsWordRune(next) {
				continue
			}
		case refEndSpace:
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
func refFinalPeriod(s, closers string) string {
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
	refClosersFirst  = "])}>\"'»”’ "
	refClosersSecond = "])}>\"'"
)

func refApplyAll(s string, rs []refGuarded) string {
	for _, r := range rs {
		if r.need(s) {
			s = r.re.ReplaceAllString(s, r.repl)
		}
	}
	return s
}

// splitOpeningQuote is the rule (?i)(')(?!re|ve|ll|m|t|s|d|n)(\w)\b → "' x":
// a quote before a one-character word that is not a refContraction suffix.
func refSplitOpeningQuote(s string) string {
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

func refTreebankTokens(text string) []string {
	text = refApplyAll(text, refStartingQuotes)
	text = refSplitOpeningQuote(text)
	text = refFinalPeriod(text, refClosersFirst)
	text = refApplyAll(text, refPunctuation)
	text = refFinalPeriod(text, refClosersSecond)
	text = refApplyAll(text, refPunctuation2)
	text = " " + text + " "
	text = refApplyAll(text, refEndingQuotes)
	for _, c := range refContractions {
		text = c.apply(text)
	}
	return Fields(text)
}

// FuzzTreebankTokens: the scans of tokenize.go split every text as the
// regular expressions they replaced do.
func FuzzTreebankTokens(f *testing.F) {
	for _, s := range []string{
		`He said, "DON'T go," and 'twas done... (really?) [yes] {no} <b> --ok-- 3,000 a:b c: `,
		"«Hi» “there” ‘you’ „x“ ``y`` ''z'' 'tis gonna wanna\tcannot lemme gimme gotta more'n d'ye",
		"I'm you're they've we'll she'd it's JOHN'S can't WON'T ' ' a' b'' c'  \"d\" ",
		"e.g. U.S. end. ...and.. ; @ # $ % & * ! ? \xff\xfe , \ufffd: x,\u0661 y:\u0662",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := treebankTokens(s), refTreebankTokens(s); !slices.Equal(got, want) {
			t.Fatalf("treebankTokens(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestTreebankTokensRandom compares the scans with the regular
// expressions on seeded random texts over the characters and pieces the
// rules look at.
func TestTreebankTokensRandom(t *testing.T) {
	pieces := []string{"'", "\"", ",", ":", ".", ";", "!", "?", "*", "(", ")", "[", "]", "{", "}", "<", ">", "-", "`", "@", "#", "$", "%", "&",
		"«", "»", "“", "”", "‘", "’", "„", " ", " ", " ", "\n", "\t", "a", "b", "n", "t", "s", "S", "m", "M", "d", "D", "l", "L", "r", "R",
		"v", "V", "e", "E", "N", "T", "x", "1", "\u0661", "\xff", "\ufffd", "can", "not", "gon", "na", "wan", "'t", "is", "was", "ye", "more", "'n"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 30000
	if testing.Short() {
		n = 3000
	}
	for range n {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := treebankTokens(s), refTreebankTokens(s); !slices.Equal(got, want) {
			t.Fatalf("treebankTokens(%q) = %q, want %q", s, got, want)
		}
	}
}
