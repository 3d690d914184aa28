package fidelity

import (
	"math"
	"slices"

	"github.com/pocketeval/pocketeval/stats"
)

// accum gathers the per-position comparison, as llama-perplexity's
// kl_divergence_result does, plus the top-p agreement.
type accum struct {
	topP                          float64
	sumNLL, sumNLL2               float64
	sumBase, sumBase2, sumNLLBase float64
	sumKLD, sumKLD2               float64
	sumPD, sumPD2, sumPD4         float64
	sameTop, sameTopP             int
	count                         int
	klds                          []float64
	pdiffs                        []float64

	// scratch for the nucleus sets
	order   []int
	baseSet []int
	probs   []float64
}

// add compares one position: the candidate's logits against the saved
// reference record, for next token tok.
func (a *accum) add(logits []float32, base decoded, tok int) {
	a.addTop(logits, base, tok, -1)
}

// addTop is add with the candidate's most likely token given (top1 >= 0)
// rather than taken from logits.
func (a *accum) addTop(logits []float32, base decoded, tok, top1 int) {
	lse, maxLogit, _, imax := logSumExp(logits)
	if top1 >= 0 {
		imax = top1
	}
	logSum := lse - maxLogit
	nll := maxLogit + logSum - logits[tok]
	nllBase := -(base.scale*float32(base.vals[tok]) + base.minLP)
	a.sumNLL += float64(nll)
	a.sumNLL2 += float64(nll * nll)
	a.sumBase += float64(nllBase)
	a.sumBase2 += float64(nllBase * nllBase)
	a.sumNLLBase += float64(nll * nllBase)

	var kld float64
	imaxBase := -1
	var maxBase float32
	for i := range logits {
		lp := base.logProb(i)
		if i == 0 || lp > maxBase {
			maxBase, imaxBase = lp, i
		}
		if lp > -16 {
			pb := float32(math.Exp(float64(lp)))
			kld += float64(pb * (lp - logits[i] + lse))
		}
	}
	a.sumKLD += kld
	a.sumKLD2 += kld * kld
	a.count++
	if imax == imaxBase {
		a.sameTop++
	}
	pBase := float32(math.Exp(float64(-nllBase)))
	p := float32(math.Exp(float64(-nll)))
	pd := float64(p - pBase)
	a.sumPD += pd
	a.sumPD2 += pd * pd
	a.sumPD4 += pd * pd * pd * pd
	a.klds = append(a.klds, kld)
	a.pdiffs = append(a.pdiffs, pd)

	if a.topP > 0 {
		a.baseSet = a.nucleus(a.baseSet, len(logits), func(i int) float64 { return math.Exp(float64(base.logProb(i))) })
		if a.sameNucleus(a.baseSet, logits, lse) {
			a.sameTopP++
		}
	}
}

// nucleus returns, sorted by id, the smallest set of most likely tokens
// whose probabilities sum to at least topP of the total (ties in
// probability taken by the lower id). A heap over the vocabulary yields the
// most likely tokens one by one: O(V + k log V) for a set of k.
func (a *accum) nucleus(dst []int, n int, prob func(int) float64) []int {
	a.probs = a.probs[:0]
	a.order = a.order[:0]
	var total float64
	for i := range n {
		p := prob(i)
		a.probs = append(a.probs, p)
		a.order = append(a.order, i)
		total += p
	}
	h := a.order
	above := func(x, y int) bool { // x before y
		px, py := a.probs[x], a.probs[y]
		return px > py || (px == py && x < y)
	}
	down := func(i, size int) {
		for {
			c := 2*i + 1
			if c >= size {
				return
			}
			if c+1 < size && above(h[c+1], h[c]) {
				c++
			}
			if !above(h[c], h[i]) {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i, len(h))
	}
	dst = dst[:0]
	var cum float64
	for size := len(h); size > 0; size-- {
		top := h[0]
		dst = append(dst, top)
		cum += a.probs[top]
		if cum >= a.topP*total {
			break
		}
		h[0] = h[size-1]
		down(0, size-1)
	}
	slices.Sort(dst)
	return dst
}

// sameNucleus reports whether set (sorted ids) is the candidate's top-p
// nucleus, in one pass over the vocabulary: its tokens must be the
// candidate's most likely ones (ties to the lower id) and reach topP only
// with the last of them.
func (a *accum) sameNucleus(set []int, logits []float32, lse float32) bool {
	p := func(i int) float64 { return math.Exp(float64(logits[i] - lse)) }
	var total, in float64
	minIn, minID := math.Inf(1), -1
	k := 0
	for i := range logits {
		x := p(i)
		total += x
		if k < len(set) && set[k] == i {
			k++
			in += x
			if x < minIn || (x == minIn && i > minID) {
				minIn, minID = x, i
			}
		}
	}
	for i := range logits {
		if _, found := slices.BinarySearch(set, i); found {
			continue
		}
		if x := p(i); x > minIn || (x == minIn && i < minID) {
			return false // a token outside the set comes before one in it
		}
	}
	return in >= a.topP*total && in-minIn < a.topP*total
}

// Interval is an estimate with its standard error and 95% interval.
type Interval struct {
	Value  float64 `json:"value"`
	Stderr float64 `json:"stderr"`
	Lo     float64 `json:"ci_lo"`
	Hi     float64 `json:"ci_hi"`
}

func normal(v, se float64) Interval {
	return Interval{Value: v, Stderr: se, Lo: v - stats.Z95*se, Hi: v + stats.Z95*se}
}

// TokenReport is the token-level comparison of a candidate with its
// reference.
type TokenReport struct {
	Sequences int `json:"sequences"`
	Positions int `json:"positions"`
	// PPL are both perplexities over the scored positions; LnPPLRatio is
	// mean ln(PPL(cand)/PPL(ref)), PPLRatio and PPLDiff the same as ratio
	// and difference, PPLIncreasePct 100·(ratio-1); CorLnPPL the
	// correlation of the two per-position NLLs' means.
	PPLRef         Interval `json:"ppl_ref"`
	PPLCand        Interval `json:"ppl_cand"`
	LnPPLRatio     Interval `json:"ln_ppl_ratio"`
	PPLRatio       Interval `json:"ppl_ratio"`
	PPLDiff        Interval `json:"ppl_diff"`
	PPLIncreasePct Interval `json:"ppl_increase_pct"`
	CorLnPPL       float64  `json:"cor_ln_ppl"`
	// KL divergence of the candidate from the reference, in nats per
	// position.
	KLMean   Interval `json:"kl_mean"`
	KLMedian float64  `json:"kl_median"`
	KLP99    Interval `json:"kl_p99"`
	KLP999   float64  `json:"kl_p999"`
	KLMax    float64  `json:"kl_max"`
	// Top1 is the fraction of positions whose most likely tokens agree
	// (llama-perplexity's "Same top p"); SameTopP the fraction whose top-p
	// nucleus sets (TopP) are the same tokens.
	Top1     Interval `json:"top1_agreement"`
	TopP     float64  `json:"top_p"`
	SameTopP Interval `json:"same_top_p_set"`
	// DeltaP is the candidate's probability of the actual next token
	// minus the reference's; RMS its root mean square.
	DeltaP    Interval `json:"delta_p_mean"`
	DeltaPRMS Interval `json:"delta_p_rms"`
	// CandidateTopK is set when the candidate was a server known only by
	// its top-k log-probabilities (CompareTopK).
	CandidateTopK *TopKNote `json:"candidate_top_k,omitempty"`
}

// TopKNote qualifies a comparison with a top-k candidate: the KL figures
// are lower bounds, and the candidate's perplexity is estimated at the
// positions whose actual next token was outside the top k.
type TopKNote struct {
	KLIsLowerBound      bool `json:"kl_is_lower_bound"`
	EstimatedNextTokens int  `json:"estimated_next_tokens"`
}

// meanUnc is llama-perplexity's mean_and_uncertainty: the mean and the
// standard error of the mean (0 for ten values or fewer).
func meanUnc(sum, sum2 float64, n int) (float64, float64) {
	if n < 1 {
		return 0, 0
	}
	f := sum / float64(n)
	df := sum2/float64(n) - f*f
	if df > 0 && n > 10 {
		return f, math.Sqrt(df / float64(n-1))
	}
	return f, 0
}

func covariance(a, b, ab float64, n int) float64 {
	if n < 10 {
		return 0
	}
	v := ab/float64(n) - (a/float64(n))*(b/float64(n))
	return v / float64(n-1)
}

// percentile is llama-perplexity's: linear between the two nearest ranks
// of the sorted values.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[len(sorted)-1]
	}
	p := q * float64(len(sorted)-1)
	ip := int(p)
	p -= float64(ip)
	return (1-p)*sorted[ip] + p*sorted[min(ip+1, len(sorted)-1)]
}

// quantileInterval is the distribution-free 95% interval of the q
// quantile: the order statistics at ranks n·q ∓ 1.96·sqrt(n·q·(1-q)).
func quantileInterval(sorted []float64, q float64) Interval {
	n := float64(len(sorted))
	v := percentile(sorted, q)
	if n == 0 {
		return Interval{}
	}
	h := stats.Z95 * math.Sqrt(n*q*(1-q))
	lo := int(math.Floor(n*q - h))
	hi := int(math.Ceil(n*q + h))
	lo = min(max(lo, 0), len(sorted)-1)
	hi = min(max(hi, 0), len(sorted)-1)
	return Interval{Value: v, Lo: sorted[lo], Hi: sorted[hi]}
}

func proportion(k, n int) Interval {
	if n < 2 {
		return Interval{}
	}
	p := float64(k) / float64(n)
	lo, hi := stats.Wilson(float64(k), n)
	return Interval{Value: p, Stderr: math.Sqrt(p * (1 - p) / float64(n-1)), Lo: lo, Hi: hi}
}

func (a *accum) report(sequences int) TokenReport {
	r := TokenReport{Sequences: sequences, Positions: a.count, TopP: a.topP}
	n := a.count
	lp, lpu := meanUnc(a.sumNLL, a.sumNLL2, n)
	lb, lbu := meanUnc(a.sumBase, a.sumBase2, n)
	cov := covariance(a.sumNLL, a.sumBase, a.sumNLLBase, n)
	ppl, pplBase := math.Exp(lp), math.Exp(lb)
	r.PPLCand = normal(ppl, ppl*lpu)
	r.PPLRef = normal(pplBase, pplBase*lbu)
	if lpu > 0 && lbu > 0 {
		r.CorLnPPL = cov / (lpu * lbu)
	}
	ratioUnc := math.Sqrt(max(0, lpu*lpu+lbu*lbu-2*cov))
	r.LnPPLRatio = normal(lp-lb, ratioUnc)
	ratio := math.Exp(lp - lb)
	r.PPLRatio = normal(ratio, ratio*ratioUnc)
	r.PPLIncreasePct = normal(100*(ratio-1), 100*ratio*ratioUnc)
	pplCov := ppl * pplBase * cov
	r.PPLDiff = normal(ppl-pplBase, math.Sqrt(max(0, ppl*lpu*ppl*lpu+pplBase*lbu*pplBase*lbu-2*pplCov)))
	km, ku := meanUnc(a.sumKLD, a.sumKLD2, n)
	r.KLMean = normal(km, ku)
	sorted := slices.Clone(a.klds)
	slices.Sort(sorted)
	if len(sorted) > 0 {
		r.KLMedian = stats.Median(sorted)
		r.KLP99 = quantileInterval(sorted, 0.99)
		r.KLP999 = percentile(sorted, 0.999)
		r.KLMax = sorted[len(sorted)-1]
	}
	r.Top1 = proportion(a.sameTop, n)
	if a.topP > 0 {
		r.SameTopP = proportion(a.sameTopP, n)
	}
	pm, pu := meanUnc(a.sumPD, a.sumPD2, n)
	r.DeltaP = normal(pm, pu)
	mse, mu := meanUnc(a.sumPD2, a.sumPD4, n)
	rms := math.Sqrt(mse)
	rmsUnc := 0.0
	if rms > 0 {
		rmsUnc = 0.5 / rms * mu
	}
	r.DeltaPRMS = normal(rms, rmsUnc)
	return r
}
