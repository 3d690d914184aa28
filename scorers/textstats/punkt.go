package textstats

import (
	"strings"
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
// nltk's English model is a trained parameter file (abbreviation types,
// collocations, frequent sentence starters and an orthographic-context table
// for every word of its training corpus). pocketeval does not ship it. The
// parameters below are written by hand: abbreviation types modelled on the
// model's documented ones, a list of frequent sentence starters, no
// collocations, and an orthographic context in which only the listed
// starters and a list of common lower-case words are known. docs/ifeval.md lists what this changes.
// testdata/punkt_nltk.jsonl pins that, given the same parameters, this code
// and nltk's split and tokenize identically.

// punktParams are the model parameters of a Punkt tokenizer.
type punktParams struct {
	abbrevs      map[string]bool // lower-case, without the final period
	sentStarters map[string]bool // lower-case types
	// lowerOnly are common words known to occur in lower case and never
	// capitalised mid-sentence: capitalised, they start a sentence
	// (orthographic context "lower-case, upper-case only at a sentence
	// start").
	lowerOnly map[string]bool
	// knownLower are word types known to occur in lower case (orthographic
	// context "seen lower-case", also seen upper-case mid-sentence).
	knownLower map[string]bool
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// englishPunkt holds pocketeval's hand-written English parameters.
var englishPunkt = punktParams{
	// Abbreviation types as nltk's English model has them. The model was
	// trained on Wall Street Journal text, so it knows titles, company
	// suffixes, months and weekdays, US state abbreviations and a few
	// units, and famously not "e.g.", "i.e.", "etc." or "no." (nltk issues
	// #2543, #2376, #2154: the official tokenizer splits after them; issue
	// #2500 prints the model's set). Single letters are abbreviations too.
	abbrevs: setOf(`
		mr mrs ms dr prof jr sr st messrs gen col lt maj adm sen rep reps
		inc corp co ltd bros cie
		jan feb aug sep sept oct nov dec wed tues fri
		u.s u.s.a u.k u.n u.s.s.r d.c n.y n.j n.h n.c s.c n.m l.a w.va
		calif fla ariz colo conn ga ill kan ky mich minn nev okla ore pa tenn va wash wis ala vt
		a.m p.m a.d ph.d vs v ave ft yr mg ct cos ok
		c d e f g h k l m n p r s t w`),
	sentStarters: setOf(`
		the this it in i but he she we they a an however there if as and for
		these that when you his her our their after while what so at on one
		some also many most then yes no my each both although because since
		during now today here thus therefore finally first second third next
		overall additionally furthermore moreover instead meanwhile let
		remember please do don't to with by from all every not once`),
	lowerOnly: setOf(`
		make take get give keep choose use try stop go come see look find think
		know want need like love feel ask tell say call add consider imagine note
		check avoid include ensure create write read learn practice enjoy explore
		plan prepare start begin open close bring put set turn show keep run move
		just maybe perhaps sometimes often always never still yet even only
		really actually basically simply especially usually clearly certainly
		good great bad best better important key simple easy hard true false
		step tip answer question result reason idea way time thing people water
		food money work home life day night morning is are was were be been has
		have had would can could should must`),
}

func init() {
	englishPunkt.knownLower = map[string]bool{}
	for w := range englishPunkt.sentStarters {
		englishPunkt.knownLower[w] = true
	}
	for w := range englishPunkt.lowerOnly {
		englishPunkt.knownLower[w] = true
	}
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

func (t *punktToken) firstUpper() bool {
	r, _ := utf8.DecodeRuneInString(t.tok)
	return unicode.IsUpper(r)
}

func (t *punktToken) firstLower() bool {
	r, _ := utf8.DecodeRuneInString(t.tok)
	return unicode.IsLower(r)
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
	low := strings.ToLower(tok)
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

// punktWordTokens is nltk's PunktLanguageVars.word_tokenize.
func punktWordTokens(s string) []string {
	var out []string
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

func (p *punktParams) annotate(words []string) []punktToken {
	toks := make([]punktToken, len(words))
	for i, w := range words {
		t := punktToken{tok: w, typ: punktType(w)}
		switch {
		case w == "." || w == "?" || w == "!":
			t.sentbreak = true
		case t.isEllipsis():
			t.ellipsis = true
		case t.periodFinal() && !strings.HasSuffix(w, ".."):
			base := strings.ToLower(w[:len(w)-1])
			parts := strings.Split(base, "-")
			if p.abbrevs[base] || p.abbrevs[parts[len(parts)-1]] {
				t.abbr = true
			} else {
				t.sentbreak = true
			}
		}
		toks[i] = t
	}
	for i := 0; i+1 < len(toks); i++ {
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
// first word of a sentence? Punctuation never does. With pocketeval's
// orthographic table (sentence starters: seen lower-case and capitalised
// mid-sentence; lowerOnly words: seen lower-case, capitalised only at a
// sentence start; other words: never seen), a lower-case word is never a
// sentence starter, a capitalised lowerOnly word is one, and any other
// capitalised word is "unknown".
func (p *punktParams) orthoHeuristic(t *punktToken) ortho {
	// Python's `tok in ";:,.!?"` is a substring test.
	if t.tok != "" && strings.Contains(";:,.!?", t.tok) {
		return orthoFalse
	}
	if t.firstLower() {
		return orthoFalse
	}
	if t.firstUpper() && p.lowerOnly[t.typeNoSentPeriod()] {
		return orthoTrue
	}
	return orthoUnknown
}

func (p *punktParams) secondPass(t1, t2 *punktToken) {
	if !t1.periodFinal() {
		return
	}
	typ := t1.typeNoPeriod()
	nextTyp := t2.typeNoSentPeriod()
	initial := t1.isInitial()
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
		if o == orthoUnknown && initial && t2.firstUpper() && !p.knownLower[nextTyp] {
			t1.sentbreak = false
			t1.abbr = true
		}
	}
}

// containsSentBreak is nltk's text_contains_sentbreak: a token annotated as
// a sentence break that is followed by another token.
func (p *punktParams) containsSentBreak(context string) bool {
	toks := p.annotate(punktWordTokens(context))
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

// potentialEnds finds nltk's period_context matches: a sentence-end char
// followed by a non-word punctuation char or by whitespace and a token.
func potentialEnds(s string) []endMatch {
	var out []endMatch
	for i := 0; i < len(s); i++ {
		if !isSentEnd(rune(s[i])) {
			continue
		}
		j := i + 1
		if j >= len(s) {
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if punktNonWord(r) {
			out = append(out, endMatch{start: i, end: j, afterEnd: j + n, nextTokStart: -1})
			continue
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
		out = append(out, endMatch{start: i, end: j, afterEnd: m, nextTokStart: k})
	}
	return out
}

func lastASCIIWhitespace(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if isASCIIWhitespace(s[i]) {
			return i
		}
	}
	return 0
}

func (p *punktParams) slices(s string) []span {
	type ctxMatch struct {
		m   endMatch
		ctx string
	}
	var cands []ctxMatch
	prev := span{0, 0}
	var prevMatch *endMatch
	for _, m := range potentialEnds(s) {
		m := m
		before := s[prev.stop:m.start]
		idx := lastASCIIWhitespace(before)
		if idx != 0 {
			idx += prev.stop + 1
		} else {
			idx = prev.start
		}
		word := span{idx, m.start}
		if prevMatch != nil && prev.stop <= word.start {
			cands = append(cands, ctxMatch{*prevMatch, s[prev.start:prev.stop] + s[prevMatch.start:prevMatch.afterEnd]})
		}
		prevMatch = &m
		prev = word
	}
	if prevMatch != nil {
		cands = append(cands, ctxMatch{*prevMatch, s[prev.start:prev.stop] + s[prevMatch.start:prevMatch.afterEnd]})
	}
	var out []span
	last := 0
	for _, c := range cands {
		if !p.containsSentBreak(c.ctx) {
			continue
		}
		out = append(out, span{last, c.m.end})
		if c.m.nextTokStart >= 0 {
			last = c.m.nextTokStart
		} else {
			last = c.m.end
		}
	}
	out = append(out, span{last, len(strings.TrimRightFunc(s, IsSpace))})
	return out
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
// tokenizer does (with pocketeval's hand-written English parameters).
func Sentences(s string) []string {
	var out []string
	for _, sp := range englishPunkt.spans(s) {
		out = append(out, s[sp.start:sp.stop])
	}
	return out
}

// CountSentences is len(Sentences(s)): IFEval's count_sentences.
func CountSentences(s string) int { return len(englishPunkt.spans(s)) }

func (p *punktParams) spans(s string) []span {
	sl := p.slices(s)
	var out []span
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
