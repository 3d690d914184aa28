// Package textsim provides reference-based text similarity for rewriting
// tasks, following two official implementations exactly:
//
//   - chrF is sacrebleu's CHRF with its defaults (sacrebleu 2.x, signature
//     nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no): character n-grams of
//     order 1–6 over the text with all whitespace removed, word order 0 (so
//     chrF, not chrF++), beta 2, case-sensitive, and the "effective order"
//     averaging (not epsilon smoothing): precision and recall are averaged
//     over the orders where both texts have n-grams, then combined into
//     F-beta. Sentence scores and the corpus score (statistics summed over
//     all segments, then one F-beta) are both provided, on sacrebleu's
//     0–100 scale divided by 100.
//   - ROUGE-L is Google's rouge-score (rouge_scorer.RougeScorer(["rougeL"]),
//     use_stemmer=False): the default tokenizer lowercases, replaces every
//     run of characters outside [a-z0-9] by a space and splits; precision
//     and recall are LCS/|prediction| and LCS/|target|, and the score is the
//     F-measure 2PR/(P+R). That tokenizer drops all non-ASCII text, so a
//     Chinese sentence has no tokens and scores 0; RougeLChars is the same
//     computation over a tokenizer that also makes each non-ASCII letter or
//     digit (every Hanzi) a token of its own.
//
// Reference values in the tests were computed with sacrebleu's and
// rouge-score's own Python code (see testdata/make_golden.py).
package textsim

import (
	"strings"
	"unicode"
)

// ChrF parameters: sacrebleu's defaults.
const (
	chrfOrder = 6
	chrfBeta  = 2
)

// ChrFStats are the per-order n-gram counts of one segment: for each order
// 1..6, the hypothesis count, reference count and match count. They add up
// over segments for the corpus score.
type ChrFStats [chrfOrder][3]int

// Add accumulates o into s.
func (s *ChrFStats) Add(o ChrFStats) {
	for i := range s {
		for j := range s[i] {
			s[i][j] += o[i][j]
		}
	}
}

// Score is the chrF of these statistics in [0, 1] (sacrebleu's score/100).
func (s ChrFStats) Score() float64 {
	const factor = chrfBeta * chrfBeta
	var avgPrec, avgRec float64
	effective := 0
	for _, st := range s {
		hyp, ref, match := st[0], st[1], st[2]
		if hyp > 0 && ref > 0 {
			avgPrec += float64(match) / float64(hyp)
			avgRec += float64(match) / float64(ref)
			effective++
		}
	}
	if effective == 0 {
		return 0
	}
	avgPrec /= float64(effective)
	avgRec /= float64(effective)
	if avgPrec+avgRec == 0 {
		return 0
	}
	return (1 + factor) * avgPrec * avgRec / (float64(factor*avgPrec) + avgRec)
}

// ChrFSegment returns the statistics of a hypothesis against the best of
// its references (the one with the highest chrF; the first on ties), as
// sacrebleu does for each segment.
func ChrFSegment(hyp string, refs []string) ChrFStats {
	h := charNgrams(hyp)
	var best ChrFStats
	bestF := -1.0
	for _, ref := range refs {
		r := charNgrams(ref)
		var st ChrFStats
		for n := range chrfOrder {
			hypCount, match := 0, 0
			for g, c := range h[n] {
				hypCount += c
				if rc, ok := r[n][g]; ok {
					match += min(c, rc)
				}
			}
			refCount := 0
			for _, c := range r[n] {
				refCount += c
			}
			if len(r[n]) == 0 {
				hypCount = 0
			}
			st[n] = [3]int{hypCount, refCount, match}
		}
		if f := st.Score(); f > bestF {
			bestF, best = f, st
		}
	}
	return best
}

// ChrF returns the sentence-level chrF of hyp against refs in [0, 1].
func ChrF(hyp string, refs ...string) float64 {
	return ChrFSegment(hyp, refs).Score()
}

// CorpusChrF returns sacrebleu's corpus chrF in [0, 1]: segment statistics
// summed, then one F-beta. refs[i] are the references of hyps[i].
func CorpusChrF(hyps []string, refs [][]string) float64 {
	var total ChrFStats
	for i, h := range hyps {
		total.Add(ChrFSegment(h, refs[i]))
	}
	return total.Score()
}

// charNgrams counts the character n-grams of orders 1..6 of s with every
// whitespace character removed (Python's "".join(s.split())).
func charNgrams(s string) [chrfOrder]map[string]int {
	var b strings.Builder
	for _, r := range s {
		if !isPySpace(r) {
			b.WriteRune(r)
		}
	}
	rs := []rune(b.String())
	var out [chrfOrder]map[string]int
	for n := 1; n <= chrfOrder; n++ {
		m := map[string]int{}
		for i := 0; i+n <= len(rs); i++ {
			m[string(rs[i:i+n])]++
		}
		out[n-1] = m
	}
	return out
}

// isPySpace is Python's str.isspace for one character (str.split()'s
// separators): Go's unicode.IsSpace plus the ASCII information separators
// U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}
