package textstats

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file reimplements the decision procedure of nltk's Punkt sentence
// tokenizer (PunktSentenceTokenizer.tokenize with realign_boundaries), which
// the official IFEval scorer uses through nltk's English model to count
// sentences. The algorithm is Kiss & Strunk (2006) as nltk implements it: a
// candidate boundary is a '.', '?' or '!' followed by punctuation or by
// whitespace and another token; the word before it is classified as a
// sentence break, an abbreviation, an ellipsis, an initial or an ordinal, and
// orthographic evidence about the next word can turn an abbreviation into a
// break or an initial/ordinal into a non-break.
//
// The parameters are nltk's pretrained English model (abbreviation types,
// collocations, frequent sentence starters and the orthographic context of
// every word type of its Wall Street Journal training text), read from
// punkt_english.tsv, which testdata/gen_punkt_english.py writes from the
// model nltk ships. testdata/punkt_nltk.jsonl pins that this code splits
// and tokenizes as nltk does with that model.

//go:embed punkt_english.tsv
var punktEnglishTSV string

// nltk's orthographic-context bits (punkt.py _ORTHO_*): where a type was
// seen upper- or lower-case — at the beginning of a sentence, in the
// middle, or at an unknown position.
const (
	orthoBegUC = 1 << 1
	orthoMidUC = 1 << 2
	orthoUnkUC = 1 << 3
	orthoBegLC = 1 << 4
	orthoMidLC = 1 << 5
	orthoUnkLC = 1 << 6
	orthoUC    = orthoBegUC | orthoMidUC | orthoUnkUC
	orthoLC    = orthoBegLC | orthoMidLC | orthoUnkLC
)

// punktParams are the model parameters of a Punkt tokenizer.
type punktParams struct {
	abbrevs      map[string]bool    // lower-case, without the final period
	collocations map[[2]string]bool // (type before the period, type after)
	sentStarters map[string]bool    // lower-case types
	// orthoLines are the "ortho\tTYPE\tFLAGS" lines, sorted by TYPE
	// (bytewise), searched in place by orthoOf: 20,366 of them, which
	// a map would take milliseconds and megabytes to build at every start.
	orthoLines string
}

// englishPunkt is nltk's English model, parsed on first use.
var englishPunkt = sync.OnceValue(func() *punktParams {
	p, err := parsePunktParams(punktEnglishTSV)
	if err != nil {
		panic("textstats: punkt_english.tsv: " + err.Error())
	}
	return p
})

// parsePunktParams reads the tab-separated parameter file: lines
// "abbrev\tTYPE", "colloc\tTYPE\tTYPE", "starter\tTYPE", then the
// "ortho\tTYPE\tFLAGS" lines, sorted by TYPE, to the end; '#' starts a
// comment line. Types are kept as written (an abbreviation type may end in
// a space). The ortho lines are checked by checkOrthoLines (in the tests),
// not at every start.
func parsePunktParams(src string) (*punktParams, error) {
	p := &punktParams{abbrevs: map[string]bool{}, collocations: map[[2]string]bool{}, sentStarters: map[string]bool{}}
	for n := 1; src != ""; n++ {
		line, rest, _ := strings.Cut(src, "\n")
		if strings.HasPrefix(line, "ortho\t") {
			p.orthoLines = src
			break
		}
		src = rest
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		bad := func(why string) error { return fmt.Errorf("line %d: %s: %q", n, why, line) }
		switch {
		case f[0] == "abbrev" && len(f) == 2:
			p.abbrevs[f[1]] = true
		case f[0] == "colloc" && len(f) == 3:
			p.collocations[[2]string{f[1], f[2]}] = true
		case f[0] == "starter" && len(f) == 2:
			p.sentStarters[f[1]] = true
		default:
			return nil, bad("unknown record")
		}
	}
	if len(p.abbrevs) == 0 || p.orthoLines == "" {
		return nil, errors.New("no abbreviations or orthographic context")
	}
	return p, nil
}

// checkOrthoLines checks what orthoOf relies on: every line an ortho
// record with flags from 1 to 127, types strictly increasing.
func checkOrthoLines(lines string) error {
	prev := ""
	for n := 1; lines != ""; n++ {
		line, rest, _ := strings.Cut(lines, "\n")
		lines = rest
		f := strings.Split(line, "\t")
		if len(f) != 3 || f[0] != "ortho" {
			return fmt.Errorf("ortho line %d: not an ortho record: %q", n, line)
		}
		v, err := strconv.Atoi(f[2])
		if err != nil || v <= 0 || v >= 1<<7 || strconv.Itoa(v) != f[2] {
			return fmt.Errorf("ortho line %d: flags: %q", n, line)
		}
		if n > 1 && f[1] <= prev {
			return fmt.Errorf("ortho line %d: type %q not after %q", n, f[1], prev)
		}
		prev = f[1]
	}
	return nil
}

// orthoOf returns the orthographic context bits of a type (0 when the
// model has none), by binary search over the sorted ortho lines.
func (p *punktParams) orthoOf(typ string) int {
	b := p.orthoLines
	lo, hi := 0, len(b) // b[lo:hi] holds whole lines
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo + strings.LastIndexByte(b[lo:mid], '\n') + 1
		end := hi
		if i := strings.IndexByte(b[start:hi], '\n'); i >= 0 {
			end = start + i
		}
		key, flags, _ := strings.Cut(b[start+len("ortho\t"):end], "\t")
		switch {
		case key == typ:
			v := 0
			for i := 0; i < len(flags); i++ {
				v = v*10 + int(flags[i]-'0')
			}
			return v
		case key < typ:
			lo = end + 1
		default:
			hi = start
		}
	}
	return 0
}

// punktToken is one word token with its Punkt annotations.
type punktToken struct {
	tok       string
	typ       string // lower-case, numbers replaced by "##number##"
	sentbreak bool
	abbr      bool
	ellipsis  bool
}

func (t *punktToken) periodFinal() bool { return strings.HasSuffix(t.tok, ".") }

func (t *punktToken) typeNoPeriod() string {
	if len(t.typ) > 1 && strings.HasSuffix(t.typ, ".") {
		return t.typ[:len(t.typ)-1]
	}
	return t.typ
}

func (t *punktToken) typeNoSentPeriod() string {
	if t.sentbreak {
		return t.typeNoPeriod()
	}
	return t.typ
}

// firstUpper and firstLower are nltk's first_upper / first_lower:
// Python's isupper() / islower() of the first character.
func (t *punktToken) firstUpper() bool {
	r, _ := utf8.DecodeRuneInString(t.tok)
	return IsUpperRune(r)
}

func (t *punktToken) firstLower() bool {
	r, _ := utf8.DecodeRuneInString(t.tok)
	return IsLowerRune(r)
}

// isEllipsis: two or more periods and nothing else.
func (t *punktToken) isEllipsis() bool {
	return len(t.tok) >= 2 && strings.Trim(t.tok, ".") == ""
}

// isInitial: a single non-digit word character followed by a period.
func (t *punktToken) isInitial() bool {
	r, n := utf8.DecodeRuneInString(t.tok)
	return t.tok[n:] == "." && IsWordRune(r) && !unicode.IsDigit(r)
}

// punktType lower-cases tok and replaces numbers by "##number##", like
// nltk's _get_type (regex ^-?[\.,]?\d[\d,\.-]*\.?$).
func punktType(tok string) string {
	low := Lower(tok)
	s := strings.TrimPrefix(low, "-")
	if s != "" && (s[0] == '.' || s[0] == ',') {
		s = s[1:]
	}
	r, n := utf8.DecodeRuneInString(s)
	if s == "" || !isPyDigit(r) {
		return low
	}
	for _, c := range s[n:] {
		if !(isPyDigit(c) || c == ',' || c == '.' || c == '-') {
			return low
		}
	}
	return "##number##"
}

// isPyDigit is Python's `\d` (Unicode decimal digits).
func isPyDigit(r rune) bool { return unicode.Is(unicode.Nd, r) }

// isASCIIWhitespace is string.whitespace.
func isASCIIWhitespace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

// punktNonWord is nltk's _re_non_word_chars.
func punktNonWord(r rune) bool {
	return strings.ContainsRune(")\";}]*:@'({[!?", r)
}

// punktWordStartExcluded lists the characters that cannot start a word.
func punktWordStartExcluded(r rune) bool {
	return strings.ContainsRune("(\"`{[:;&#*@)}]-,", r)
}

func isSentEnd(r rune) bool { return r == '.' || r == '?' || r == '!' }

// multiCharAt returns the length of a multi-character punctuation match
// (--+, ..+, or ". . ." style) at s[i:], or 0.
func multiCharAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	switch s[i] {
	case '-':
		j := i
		for j < len(s) && s[j] == '-' {
			j++
		}
		if j-i >= 2 {
			return j - i
		}
	case '.':
		j := i
		for j < len(s) && s[j] == '.' {
			j++
		}
		if j-i >= 2 {
			return j - i
		}
		// (?:\.\s){2,}\.
		j = i
		reps := 0
		for j < len(s) && s[j] == '.' {
			if j+1 >= len(s) {
				break
			}
			r, n := utf8.DecodeRuneInString(s[j+1:])
			if !IsSpace(r) {
				break
			}
			j += 1 + n
			reps++
		}
		// Backtrack: need reps >= 2 followed by '.'.
		for reps >= 2 {
			if j < len(s) && s[j] == '.' {
				return j + 1 - i
			}
			// Step back one repetition.
			k := j - 1
			for k > i && s[k] != '.' {
				k--
			}
			j = k
			reps--
		}
	}
	return 0
}

// appendPunktWordTokens appends to out the tokens of s as nltk's
// PunktLanguageVars.word_tokenize splits it.
func appendPunktWordTokens(out []string, s string) []string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if IsSpace(r) {
			i += n
			continue
		}
		if m := multiCharAt(s, i); m > 0 {
			out = append(out, s[i:i+m])
			i += m
			continue
		}
		if punktWordStartExcluded(r) {
			out = append(out, s[i:i+n])
			i += n
			continue
		}
		j := i + n
		for j < len(s) {
			c, cn := utf8.DecodeRuneInString(s[j:])
			if IsSpace(c) || punktNonWord(c) || multiCharAt(s, j) > 0 {
				break
			}
			if c == ',' {
				k := j + cn
				if k >= len(s) {
					break
				}
				d, _ := utf8.DecodeRuneInString(s[k:])
				if IsSpace(d) || punktNonWord(d) || multiCharAt(s, k) > 0 {
					break
				}
			}
			j += cn
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// annotateInto appends the tokens of words to toks with nltk's first and
// second pass annotations.
func (p *punktParams) annotateInto(toks []punktToken, words []string) []punktToken {
	first := len(toks)
	for _, w := range words {
		t := punktToken{tok: w, typ: punktType(w)}
		switch {
		case w == "." || w == "?" || w == "!":
			t.sentbreak = true
		case t.isEllipsis():
			t.ellipsis = true
		case t.periodFinal() && !strings.HasSuffix(w, ".."):
			base := Lower(w[:len(w)-1])
			// The last of base's parts split at '-' (all of it without one).
			last := base[strings.LastIndexByte(base, '-')+1:]
			if p.abbrevs[base] || p.abbrevs[last] {
				t.abbr = true
			} else {
				t.sentbreak = true
			}
		}
		toks = append(toks, t)
	}
	for i := first; i+1 < len(toks); i++ {
		p.secondPass(&toks[i], &toks[i+1])
	}
	return toks
}

type ortho int

const (
	orthoFalse ortho = iota
	orthoTrue
	orthoUnknown
)

// orthoHeuristic is nltk's _ortho_heuristic: does the token look like the
// first word of a sentence? Punctuation never does; a capitalised word
// seen lower-case but never capitalised mid-sentence does; a lower-case
// word seen capitalised, or never seen lower-case at a sentence start,
// does not; anything else is unknown.
func (p *punktParams) orthoHeuristic(t *punktToken) ortho {
	// Python's `tok in ";:,.!?"` is a substring test.
	if strings.Contains(";:,.!?", t.tok) {
		return orthoFalse
	}
	oc := p.orthoOf(t.typeNoSentPeriod())
	if t.firstUpper() && oc&orthoLC != 0 && oc&orthoMidUC == 0 {
		return orthoTrue
	}
	if t.firstLower() && (oc&orthoUC != 0 || oc&orthoBegLC == 0) {
		return orthoFalse
	}
	return orthoUnknown
}

// secondPass is nltk's _second_pass_annotation of the token pair.
func (p *punktParams) secondPass(t1, t2 *punktToken) {
	if !t1.periodFinal() {
		return
	}
	typ := t1.typeNoPeriod()
	nextTyp := t2.typeNoSentPeriod()
	initial := t1.isInitial()
	// Collocation heuristic: a known collocation across the period makes
	// the first token an abbreviation.
	if p.collocations[[2]string{typ, nextTyp}] {
		t1.sentbreak = false
		t1.abbr = true
		return
	}
	if (t1.abbr || t1.ellipsis) && !initial {
		if p.orthoHeuristic(t2) == orthoTrue {
			t1.sentbreak = true
			return
		}
		if t2.firstUpper() && p.sentStarters[nextTyp] {
			t1.sentbreak = true
			return
		}
	}
	if initial || typ == "##number##" {
		o := p.orthoHeuristic(t2)
		if o == orthoFalse {
			t1.sentbreak = false
			t1.abbr = true
			return
		}
		if o == orthoUnknown && initial && t2.firstUpper() && p.orthoOf(nextTyp)&orthoLC == 0 {
			t1.sentbreak = false
			t1.abbr = true
		}
	}
}

// containsSentBreak is nltk's text_contains_sentbreak: a token annotated as
// a sentence break that is followed by another token. A context is the word
// before a candidate and the token after it, a few tokens: they are kept
// on the stack.
func (p *punktParams) containsSentBreak(context string) bool {
	var wordBuf [8]string
	var tokBuf [8]punktToken
	toks := p.annotateInto(tokBuf[:0], appendPunktWordTokens(wordBuf[:0], context))
	found := false
	for _, t := range toks {
		if found {
			return true
		}
		if t.sentbreak {
			found = true
		}
	}
	return false
}

type span struct{ start, stop int }

type endMatch struct {
	start, end   int // the sentence-end character
	afterEnd     int // end of after_tok
	nextTokStart int // -1 when after_tok is punctuation
}

// nextEnd returns the first of nltk's period_context matches at or after
// byte i: a sentence-end char followed by a non-word punctuation char or by
// whitespace and a token.
func nextEnd(s string, i int) (endMatch, bool) {
	for ; i < len(s); i++ {
		if !isSentEnd(rune(s[i])) {
			continue
		}
		j := i + 1
		if j >= len(s) {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if punktNonWord(r) {
			return endMatch{start: i, end: j, afterEnd: j + n, nextTokStart: -1}, true
		}
		k := j
		for k < len(s) {
			c, cn := utf8.DecodeRuneInString(s[k:])
			if !IsSpace(c) {
				break
			}
			k += cn
		}
		if k == j || k >= len(s) {
			continue
		}
		m := k
		for m < len(s) {
			c, cn := utf8.DecodeRuneInString(s[m:])
			if IsSpace(c) {
				break
			}
			m += cn
		}
		return endMatch{start: i, end: j, afterEnd: m, nextTokStart: k}, true
	}
	return endMatch{}, false
}

func lastASCIIWhitespace(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if isASCIIWhitespace(s[i]) {
			return i
		}
	}
	return 0
}

// context is nltk's match.group() + after_tok context of a candidate: the
// word before the sentence-end character and the match from it. The word
// ends where the match starts, so this is a part of s, not a copy.
func context(s string, word span, m *endMatch) string {
	if word.stop == m.start {
		return s[word.start:m.afterEnd]
	}
	return s[word.start:word.stop] + s[m.start:m.afterEnd]
}

// slices are nltk's _slices_from_text: each candidate is decided as soon
// as the next one shows where its word ends.
func (p *punktParams) slices(s string) []span {
	var out []span
	last := 0
	prev := span{0, 0}
	var prevMatch endMatch
	have := false
	for i := 0; ; {
		m, ok := nextEnd(s, i)
		if !ok {
			break
		}
		i = m.start + 1
		before := s[prev.stop:m.start]
		idx := lastASCIIWhitespace(before)
		if idx != 0 {
			idx += prev.stop + 1
		} else {
			idx = prev.start
		}
		word := span{idx, m.start}
		if have && prev.stop <= word.start {
			out, last = p.decide(s, out, last, prev, &prevMatch)
		}
		prevMatch, have = m, true
		prev = word
	}
	if have {
		out, last = p.decide(s, out, last, prev, &prevMatch)
	}
	return append(out, span{last, len(strings.TrimRightFunc(s, IsSpace))})
}

// decide ends a slice at the candidate m, whose word is word, if its
// context contains a sentence break; last is where the current slice
// starts.
func (p *punktParams) decide(s string, out []span, last int, word span, m *endMatch) ([]span, int) {
	if !p.containsSentBreak(context(s, word, m)) {
		return out, last
	}
	out = append(out, span{last, m.end})
	if m.nextTokStart >= 0 {
		return out, m.nextTokStart
	}
	return out, m.end
}

// realignMatch is re_boundary_realignment (["')\]}]+?(?:\s+|(?=--)|$),
// MULTILINE) matched at the start of s; it returns the match length and the
// length of the match with trailing whitespace removed, or -1.
func realignMatch(s string) (int, int) {
	i := 0
	for i < len(s) && strings.IndexByte("\"')]}", s[i]) >= 0 {
		i++
		// Lazy: try to finish after each closing char.
		if end, ok := realignTail(s, i); ok {
			return end, i
		}
	}
	return -1, -1
}

func realignTail(s string, i int) (int, bool) {
	// Alternatives in the pattern's order: \s+ (greedy), (?=--), $.
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if !IsSpace(r) {
			break
		}
		j += n
	}
	if j > i {
		return j, true
	}
	if strings.HasPrefix(s[i:], "--") || i >= len(s) || s[i] == '\n' {
		return i, true
	}
	return 0, false
}

// Sentences splits English text into sentences the way nltk's Punkt
// tokenizer does (with nltk's pretrained English model).
func Sentences(s string) []string {
	var out []string
	for _, sp := range englishPunkt().spans(s) {
		out = append(out, s[sp.start:sp.stop])
	}
	return out
}

// CountSentences is len(Sentences(s)): IFEval's count_sentences.
func CountSentences(s string) int { return len(englishPunkt().spans(s)) }

func (p *punktParams) spans(s string) []span {
	sl := p.slices(s)
	out := sl[:0] // in place: the i-th span is written after sl[i] and sl[i+1] are read
	realign := 0
	for i := range sl {
		s1 := span{sl[i].start + realign, sl[i].stop}
		if i+1 == len(sl) {
			if s1.stop > s1.start {
				out = append(out, s1)
			}
			continue
		}
		s2 := sl[i+1]
		if s2.start < s2.stop {
			if end, trimmed := realignMatch(s[s2.start:s2.stop]); end >= 0 {
				out = append(out, span{s1.start, s2.start + trimmed})
				realign = end
				continue
			}
		}
		realign = 0
		if s1.stop > s1.start {
			out = append(out, s1)
		}
	}
	return out
}
