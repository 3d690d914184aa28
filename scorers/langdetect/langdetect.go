// Package langdetect identifies the language of a text exactly as the
// Python library langdetect 1.0.9 does (the library the official IFEval
// scorer calls), given the seed the official code would set with
// DetectorFactory.seed.
//
// It is a Go port of langdetect's algorithm, reading langdetect's own
// published data (55 character n-gram language profiles and the
// normalisation tables of messages.properties, Apache-2.0, embedded
// verbatim: see profiles/PROVENANCE.json). A detection
//
//  1. replaces URLs and e-mail addresses with a space, joins Vietnamese
//     letters with their combining marks, keeps the first 10,000
//     characters and collapses runs of spaces;
//  2. drops the Latin letters A–z when characters from U+0300 up outnumber
//     them more than two to one;
//  3. normalises every character (Latin punctuation and digits to spaces,
//     kana, hangul and bopomofo to one letter each, Chinese characters to
//     their class representative, ...) and collects the 1-, 2- and 3-grams
//     found in the profiles, skipping any n-gram after the second capital
//     letter of a word;
//  4. runs seven trials, each drawing n-grams at random and multiplying
//     every language's probability by (α/10000 + P(n-gram | language)),
//     with α = 0.5 + 0.05·gauss, normalising every fifth step until one
//     language exceeds 0.99999 or 1,000 steps have passed;
//  5. averages the seven trials and reports the languages above 0.1.
//
// The random draws are CPython's (package pyrandom): with the same seed the
// port makes the same draws as langdetect and returns the same
// probabilities. What the port intentionally does differently, and why,
// is limited to three platform details documented in docs/ifeval.md: the
// profiles are taken in sorted order (langdetect uses os.listdir order),
// gauss uses correctly rounded cos/sin/log (langdetect uses the C
// library's), and sums are plain left-to-right sums as in Python 3.11.
//
// A Detector is immutable and safe for concurrent use.
package langdetect

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/internal/pyrandom"
	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// langdetect's constants (detector.py).
const (
	alphaDefault   = 0.5
	alphaWidth     = 0.05
	iterationLimit = 1000
	probThreshold  = 0.1
	convThreshold  = 0.99999
	baseFreq       = 10000
	nTrial         = 7
	maxTextLength  = 10000
)

// The CJK Unified Ideographs block, which NGram maps to class
// representatives.
const (
	cjkFirst = 0x4e00
	cjkLast  = 0x9fff
)

// Unknown is what Detect returns when no language has a probability above
// 0.1 (langdetect's UNKNOWN_LANG).
const Unknown = "unknown"

// ErrNoFeatures is langdetect's LangDetectException "No features in text.":
// no n-gram of the text is in any profile (an empty text, digits and
// punctuation only, ...). The official IFEval checkers count the
// instruction as followed then.
var ErrNoFeatures = errors.New("langdetect: no features in text")

// Language is a language code as langdetect names it ("en", "zh-cn",
// "zh-tw", ...) with its probability.
type Language struct {
	Lang string  `json:"lang"`
	Prob float64 `json:"prob"`
}

func (l Language) String() string { return fmt.Sprintf("%s:%v", l.Lang, l.Prob) }

// Detector detects languages with one seed.
type Detector struct {
	seed uint64
	once sync.Once
	m    *model
	err  error
	// start is the generator just after the first trial's gauss draw,
	// which follows the seeding directly; alpha0 is that trial's α.
	start  pyrandom.Rand
	alpha0 float64
}

// New returns a Detector that draws as langdetect does after
// DetectorFactory.seed = seed. langdetect seeds Python's random with the
// seed's absolute value, so a negative seed -s there is seed s here.
func New(seed uint64) *Detector { return &Detector{seed: seed} }

// Seed returns the detector's seed.
func (d *Detector) Seed() uint64 { return d.seed }

func (d *Detector) init() error {
	d.once.Do(func() {
		d.m, d.err = loadModel()
		d.start.Seed(d.seed)
		d.alpha0 = alpha(&d.start)
	})
	return d.err
}

func alpha(r *pyrandom.Rand) float64 {
	return alphaDefault + float64(r.Gauss(0, 1)*alphaWidth)
}

// Load loads the profiles (from the model cache, or by building the model)
// if no earlier call did, and returns the error that made them unusable.
func Load() error {
	_, err := loadModel()
	return err
}

// Languages returns the codes of the 55 profiles, sorted.
func Languages() ([]string, error) {
	m, err := loadModel()
	if err != nil {
		return nil, err
	}
	return append([]string(nil), m.langs...), nil
}

// Detect returns the most probable language, as langdetect.detect does:
// Unknown when no language reaches 0.1, ErrNoFeatures for a text without
// features.
//
// It runs the trials that can still change the answer: after the k-th of
// seven, each later trial adds at most 1/7 to any language's average (a
// trial's probabilities sum to 1), so once the leading language is ahead
// of every other by more than (7-k)/7 it stays first, and above 0.1,
// whatever the remaining trials draw. An English text is usually decided
// after four trials. Probabilities runs all seven.
func (d *Detector) Detect(text string) (string, error) {
	var langprob [64]float64
	n, err := d.run(text, &langprob, true)
	if err != nil {
		return "", err
	}
	best := -1
	for i := range n {
		if langprob[i] > probThreshold && (best < 0 || langprob[i] > langprob[best]) {
			best = i
		}
	}
	if best < 0 {
		return Unknown, nil
	}
	return d.m.langs[best], nil
}

// Probabilities returns the languages with probability above 0.1, most
// probable first (ties in profile order), as langdetect.detect_langs does.
func (d *Detector) Probabilities(text string) ([]Language, error) {
	var langprob [64]float64
	n, err := d.run(text, &langprob, false)
	if err != nil {
		return nil, err
	}
	m := d.m
	var out []Language
	for i := range n {
		if langprob[i] > probThreshold {
			out = append(out, Language{m.langs[i], langprob[i]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Prob > out[j].Prob })
	return out, nil
}

// run runs the trials on text, adding each language's average probability
// into langprob, and returns the number of languages. With decided it
// stops once the language Detect returns can no longer change (see Detect).
func (d *Detector) run(text string, langprob *[64]float64, decided bool) (int, error) {
	if err := d.init(); err != nil {
		return 0, err
	}
	m := d.m
	buf := bufPool.Get().(*buffers)
	defer bufPool.Put(buf)
	buf.runes = m.prepare(text, buf.runes[:0])
	buf.grams = m.extract(buf.runes, buf.grams[:0])
	if len(buf.grams) == 0 {
		return 0, ErrNoFeatures
	}
	var prob [64]float64
	n := len(m.langs)
	r := d.start // a copy: the generator as after seeding and the first gauss
	for t := range nTrial {
		a := d.alpha0
		if t > 0 {
			a = alpha(&r)
		}
		for i := range n {
			prob[i] = 1.0 / float64(n)
		}
		m.trial(prob[:n], buf.grams, a, &r)
		for j := range n {
			langprob[j] += prob[j] / nTrial
		}
		if decided && t+1 < nTrial && leads(langprob[:n], float64(nTrial-t-1)/nTrial) {
			break
		}
	}
	return n, nil
}

// leads reports whether one language's sum exceeds 0.1 and every other
// language's by more than rest (plus a margin far above the rounding of
// the remaining additions, each of at most 1/7 to values of at most 1).
// A NaN anywhere makes it false.
func leads(langprob []float64, rest float64) bool {
	best := 0
	for i, p := range langprob {
		if p > langprob[best] {
			best = i
		}
	}
	lead := langprob[best]
	if !(lead > probThreshold) {
		return false
	}
	for i, p := range langprob {
		if i != best && !(lead > p+rest+1e-9) {
			return false
		}
	}
	return true
}

// trial is one iteration of detector.py's _detect_block loop.
func (m *model) trial(prob []float64, grams []int32, alpha float64, r *pyrandom.Rand) {
	weight := alpha / baseFreq
	var saved [64]float64
	for i := 0; ; i++ {
		m.update(prob, grams[r.Choice(len(grams))], weight, &saved)
		if i%5 == 0 {
			if normalize(prob) > convThreshold || i >= iterationLimit {
				return
			}
		}
	}
}

// update multiplies each language's probability by weight + P(gram|lang),
// one multiplication per language as in _update_lang_prob. An n-gram found
// in many languages has a full row of probabilities (gram is then the
// complement of the row's index). Most occur in a few languages only, and
// the factor of the others is weight + 0 = weight: all probabilities are
// multiplied by weight in one pass, and the few others are then recomputed
// from their saved value with their own factor, so that every probability
// is still multiplied exactly once, by the same double. saved is scratch
// space for at least as many values as there are languages.
func (m *model) update(prob []float64, gram int32, weight float64, saved *[64]float64) {
	if gram < 0 {
		off := int(^gram) * len(prob)
		row := m.rows[off : off+len(prob)]
		for i := range prob {
			prob[i] *= weight + row[i]
		}
		return
	}
	entries := m.entries[m.start[gram]:m.start[gram+1]]
	for k, e := range entries {
		saved[k] = prob[e&0x3f]
	}
	for i := range prob {
		prob[i] *= weight
	}
	for k, e := range entries {
		prob[e&0x3f] = saved[k] * (weight + m.entryProb(e))
	}
}

// normalize divides by the sum (summed left to right, as Python 3.11's
// sum does) and returns the largest probability.
func normalize(prob []float64) float64 {
	sum := 0.0
	for _, p := range prob {
		sum += p
	}
	maxp := 0.0
	for i, p := range prob {
		p /= sum
		if maxp < p {
			maxp = p
		}
		prob[i] = p
	}
	return maxp
}

type buffers struct {
	runes []rune
	grams []int32
}

var bufPool = sync.Pool{New: func() any { return &buffers{} }}

// prepare is Detector.append followed by cleaning_text: URLs and e-mail
// addresses become spaces, Vietnamese is normalised (NGram.normalize_vi:
// a vowel followed by a combining grave, acute, tilde, hook or dot below
// becomes the precomposed letter), the text is cut to 10,000 characters
// with runs of spaces collapsed, and Latin letters are dropped from text
// that is mostly non-Latin. (One loop, without a callback per character:
// TestPrepare compares it with the two steps written apart.)
func (m *model) prepare(text string, out []rune) []rune {
	text = removeURLs(text)
	text = removeMails(text)
	c := cleaner{out: out, pre: -1}
	var prev rune = -1 // normalize_vi's pending character
	for _, ch := range text {
		if prev >= 0 {
			if 0x0300 <= ch && ch <= 0x0323 {
				if mark, base := indexRune(m.viMarks, ch), indexRune(m.viBase, prev); mark >= 0 && base >= 0 {
					c.add(m.viChars[mark][base])
					prev = -1
					if c.n >= maxTextLength {
						break
					}
					continue
				}
			}
			c.add(prev)
			if c.n >= maxTextLength {
				prev = -1
				break
			}
		}
		prev = ch
	}
	if prev >= 0 && c.n < maxTextLength {
		c.add(prev)
	}
	out = c.out
	if c.latin*2 < c.nonLatin {
		kept := out[:0]
		for _, ch := range out {
			if ch < 'A' || 'z' < ch {
				kept = append(kept, ch)
			}
		}
		out = kept
	}
	return out
}

// cleaner is the state of Detector.append's loop over the normalised text.
type cleaner struct {
	out             []rune
	pre             rune
	n               int // characters taken, at most maxTextLength
	latin, nonLatin int
}

// add takes the next character: dropped when it repeats a space.
func (c *cleaner) add(ch rune) {
	c.n++
	if ch != ' ' || c.pre != ' ' {
		c.out = append(c.out, ch)
		if 'A' <= ch && ch <= 'z' {
			c.latin++
		} else if ch >= 0x0300 {
			// detector.py also means to exempt Latin Extended
			// Additional here, but compares a block number with a
			// block name, so the exemption never applies; the port
			// keeps that.
			c.nonLatin++
		}
	}
	c.pre = ch
}

// isMailLocal and isMailHost report the characters of MAIL_RE's classes
// [-_.0-9A-Za-z] and [-_0-9A-Za-z].
func isMailLocal(c byte) bool { return c == '.' || isMailHost(c) }

func isMailHost(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// removeMails replaces every match of detector.py's MAIL_RE,
// [-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}, with a
// space, as re.sub does, by a scan (the expression's counted repetitions
// make a large program for Go's regexp, which took longer to compile than
// to run). No class holds '@', so a match holds one, and the leftmost
// match of an '@' starts at the leftmost of the 64 characters before it
// from which only local characters lead to it (and not before the end of
// the previous match); whether it matches, and where it ends, depends
// only on what follows the '@' (mailEnd). TestRemoveMails and
// FuzzRemoveMails compare it with the expression.
func removeMails(s string) string {
	var b []byte
	last := 0
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '@')
		if i < 0 {
			break
		}
		at := from + i
		from = at + 1
		start := at
		for start > last && at-start < 64 && isMailLocal(s[start-1]) {
			start--
		}
		if start == at {
			continue
		}
		end, ok := mailEnd(s, at+1)
		if !ok {
			continue
		}
		b = append(b, s[last:start]...)
		b = append(b, ' ')
		last, from = end, end
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// mailEnd matches [-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255} at s[i:] the
// way a backtracking matcher does (both greedy) and returns where the
// match ends.
func mailEnd(s string, i int) (int, bool) {
	host := i
	for host < len(s) && host-i < 255 && isMailHost(s[host]) {
		host++
	}
	if host == i {
		return 0, false
	}
	rest := host
	for rest < len(s) && rest-host < 255 && isMailLocal(s[rest]) {
		rest++
	}
	if rest > host {
		return rest, true
	}
	// The second part takes nothing after the first: the first gives back
	// its last character, after which nothing of the second's class
	// follows (else the first would have taken it, or the second).
	if host-i >= 2 {
		return host, true
	}
	return 0, false
}

// isURLChar reports the characters of URL_RE's class [-_.?&~;+=/#0-9A-Za-z].
func isURLChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '?', '&', '~', ';', '+', '=', '/', '#':
		return true
	}
	return false
}

// removeURLs replaces every match of URL_RE,
// https?://[-_.?&~;+=/#0-9A-Za-z]{1,2076}, with a space. (Go's regexp
// does not take repeat counts above 1000, hence the hand-written scan.)
func removeURLs(s string) string {
	var b []byte
	last := 0
	for i := 0; i+7 < len(s); {
		h := strings.Index(s[i:], "http")
		if h < 0 {
			break
		}
		if i += h; i+7 >= len(s) {
			break
		}
		j := i + 4
		if s[j] == 's' {
			j++
		}
		if j+3 > len(s) || s[j:j+3] != "://" {
			i++
			continue
		}
		j += 3
		k := j
		for k < len(s) && k-j < 2076 && isURLChar(s[k]) {
			k++
		}
		if k == j {
			i++
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, ' ')
		last, i = k, k
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

func indexRune(rs []rune, r rune) int {
	for i, x := range rs {
		if x == r {
			return i
		}
	}
	return -1
}

// normalize is NGram.normalize for one character.
func (m *model) normalizeChar(ch rune) rune {
	switch {
	case ch <= 0x7f: // Basic Latin: letters only
		if ch < 'A' || 'Z' < ch && ch < 'a' || 'z' < ch {
			return ' '
		}
	case ch <= 0xff: // Latin-1 Supplement
		if m.latin1Excluded[ch] {
			return ' '
		}
	case 0x0180 <= ch && ch <= 0x024f: // Latin Extended-B: Romanian comma below
		switch ch {
		case 0x0219:
			return 0x015f
		case 0x021b:
			return 0x0163
		}
	case 0x0600 <= ch && ch <= 0x06ff: // Arabic: Farsi yeh
		if ch == 0x06cc {
			return 0x064a
		}
	case 0x1e00 <= ch && ch <= 0x1eff: // Latin Extended Additional
		if ch >= 0x1ea0 {
			return 0x1ec3
		}
	case 0x2000 <= ch && ch <= 0x206f: // General Punctuation
		return ' '
	case 0x3040 <= ch && ch <= 0x309f: // Hiragana
		return 0x3042
	case 0x30a0 <= ch && ch <= 0x30ff: // Katakana
		return 0x30a2
	case 0x3100 <= ch && ch <= 0x312f, 0x31a0 <= ch && ch <= 0x31bf: // Bopomofo (Extended)
		return 0x3105
	case cjkFirst <= ch && ch <= cjkLast: // CJK Unified Ideographs
		if r := m.cjk[ch-cjkFirst]; r != 0 {
			return r
		}
	case 0xac00 <= ch && ch <= 0xd7af: // Hangul Syllables
		return 0xac00
	}
	return ch
}

// extract is _extract_ngrams: the profile n-grams of text, in text order
// (each as update takes it: its sparse index, or the complement of its
// dense row; see model), through NGram.add_char's window of the last three
// normalised characters. Capitals are Python's (str.isupper of one
// character).
func (m *model) extract(text []rune, out []int32) []int32 {
	var g [3]rune
	g[0] = ' '
	n := 1
	capital := false
	for _, raw := range text {
		ch := m.normalizeChar(raw)
		last := g[n-1]
		if last == ' ' {
			g[0], n, capital = ' ', 1, false
			if ch == ' ' {
				continue
			}
		} else if n >= 3 {
			g[0], g[1] = g[1], g[2]
			n = 2
		}
		g[n] = ch
		n++
		if textstats.IsUpperRune(ch) {
			if textstats.IsUpperRune(last) {
				capital = true
			}
		} else {
			capital = false
		}
		if capital {
			continue
		}
		var key uint64
		for k := 1; k <= n; k++ {
			r := g[n-k]
			if r > 0xffff {
				break // no profile n-gram has such a character
			}
			key |= uint64(r) << (16 * (k - 1))
			if k == 1 && ch == ' ' {
				continue
			}
			id, ok := m.grams[k-1].lookup(key)
			if !ok {
				if m.suffixClosed {
					break // no longer n-gram ends with this one
				}
				continue
			}
			// The sparse index or the complement of the dense row, chosen
			// without a branch: dense is -1 for an id below nDense, else 0.
			dense := (id - m.nDense[k-1]) >> 31
			out = append(out, (m.base[k-1]+id)&^dense|^(m.denseBase[k-1]+id)&dense)
		}
	}
	return out
}
