// Package selective provides the numbers of selective prediction, the way
// an application uses a decision: it acts on the model's choice only when
// the choice's confidence reaches a threshold, and falls back otherwise.
//
//   - The risk–coverage curve (Geifman & El-Yaniv, "Selective
//     Classification for Deep Neural Networks", NeurIPS 2017): accepting
//     the decisions whose confidence is at least τ covers a share of the
//     items (coverage) with an error rate among them (selective risk).
//     Curve gives one point per distinct confidence, so ties are accepted
//     or refused together, as a threshold does.
//   - AURC and E-AURC (Geifman, Uziel & El-Yaniv, "Bias-Reduced
//     Uncertainty Estimation for Deep Neural Classifiers", ICLR 2019), by
//     the formula of their reference code as Moon et al.'s
//     confidence-aware-learning (utils/metrics.py, coverage_risk and
//     aurc_eaurc) publishes it (up to rounding: the sum is divided once
//     and kept within [0, 1]): sort the items by confidence, highest
//     first (a stable sort: ties keep their input order), let r_k be the
//     error rate of the first k, and AURC = (1/n) Σ_k r_k; E-AURC is AURC
//     minus the AURC of a perfect ordering with the same overall error r,
//     r + (1−r)·ln(1−r).
//   - The threshold meeting a target error rate: the lowest threshold
//     (the largest coverage) whose selective risk is at most the target,
//     chosen on one split and reported on another, with a bootstrap
//     interval over the split it was chosen on.
//   - Temperature scaling (Guo et al., "On Calibration of Modern Neural
//     Networks", ICML 2017): one scalar T > 0 divides the candidate scores
//     before the softmax, fitted by minimising the negative log-likelihood
//     of the gold candidate on a calibration split.
//
// The package knows nothing about models or tasks: it takes confidences,
// correctness and candidate scores.
package selective

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Point is one threshold of the risk–coverage curve.
type Point struct {
	// Threshold τ: decisions with confidence ≥ τ are accepted.
	Threshold float64 `json:"threshold"`
	// Coverage is the share of items accepted, Risk the error rate among
	// them (1 − selective accuracy); Accepted the number accepted.
	Coverage float64 `json:"coverage"`
	Risk     float64 `json:"risk"`
	Accepted int     `json:"accepted"`
}

// Curve is the risk–coverage curve of confidences against correctness:
// one point per distinct confidence, from the highest threshold (least
// coverage) to the lowest (coverage 1). It is empty for no items.
func Curve(confidence []float64, correct []bool) []Point {
	order := descending(confidence)
	n := len(order)
	var out []Point
	errs := 0
	for k, i := range order {
		if !correct[i] {
			errs++
		}
		if k+1 < n && confidence[order[k+1]] == confidence[i] {
			continue
		}
		out = append(out, Point{
			Threshold: confidence[i],
			Coverage:  float64(k+1) / float64(n),
			Risk:      float64(errs) / float64(k+1),
			Accepted:  k + 1,
		})
	}
	return out
}

// descending returns the indexes of xs from the highest value to the
// lowest, ties in input order (Python's sorted(..., reverse=True) is
// stable the same way).
func descending(xs []float64) []int {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return xs[order[a]] > xs[order[b]] })
	return order
}

// AURC is the area under the risk–coverage curve and its excess over a
// perfect ordering, by the reference formula (see the package comment).
// For no items both are 0. When every decision is wrong the perfect
// ordering's area is 1 (the formula's limit; numpy gives NaN there).
func AURC(confidence []float64, correct []bool) (aurc, eaurc float64) {
	order := descending(confidence)
	n := len(order)
	if n == 0 {
		return 0, 0
	}
	errs := 0
	var area float64
	for k, i := range order {
		if !correct[i] {
			errs++
		}
		area += float64(errs) / float64(k+1)
	}
	area = math.Min(1, area/float64(n))
	r := float64(errs) / float64(n)
	optimal := 1.0
	if r < 1 {
		optimal = r + float64((1-r)*math.Log(1-r))
	}
	// The curve's area is a right Riemann sum of the perfect ordering's
	// increasing risk at best, so the excess is never negative; rounding
	// is kept from making it so.
	return area, math.Max(0, area-optimal)
}

// ThresholdAt returns the lowest threshold of the curve whose selective
// risk is at most target (the largest coverage meeting it), and whether
// one exists. A threshold refusing everything (no point meets the target)
// is reported as ok false.
func ThresholdAt(curve []Point, target float64) (Point, bool) {
	for k := len(curve) - 1; k >= 0; k-- {
		if curve[k].Risk <= target {
			return curve[k], true
		}
	}
	return Point{}, false
}

// Apply is what a threshold does on a split: the share of items with
// confidence ≥ τ and the error rate among them (0 when none is accepted).
func Apply(confidence []float64, correct []bool, threshold float64) Point {
	p := Point{Threshold: threshold}
	errs := 0
	for i, c := range confidence {
		if c >= threshold {
			p.Accepted++
			if !correct[i] {
				errs++
			}
		}
	}
	if len(confidence) > 0 {
		p.Coverage = float64(p.Accepted) / float64(len(confidence))
	}
	if p.Accepted > 0 {
		p.Risk = float64(errs) / float64(p.Accepted)
	}
	return p
}

// Operating is a threshold chosen on one split (the calibration split) to
// meet a target error rate, and what it does on another (the test split).
type Operating struct {
	Target float64 `json:"target_error"`
	// Found is false when no threshold meets the target on the
	// calibration split; the other fields are then zero, and null in
	// JSON: there is no threshold, no point on either split and nothing
	// bootstrapped (a threshold of 0 would read as "accept everything").
	Found bool `json:"found"`
	// Chosen is the threshold's point on the calibration split, Test what
	// it gives on the test split.
	Chosen Point `json:"chosen"`
	Test   Point `json:"test"`
	// ThresholdLo/Hi and CoverageLo/Hi are 95% percentile bootstrap
	// intervals of the threshold and of its test coverage, over
	// resamples of the calibration split (resamples in which no
	// threshold meets the target refuse everything: threshold 1,
	// coverage 0; Unmet counts them).
	ThresholdLo float64 `json:"threshold_lo"`
	ThresholdHi float64 `json:"threshold_hi"`
	CoverageLo  float64 `json:"coverage_lo"`
	CoverageHi  float64 `json:"coverage_hi"`
	Resamples   int     `json:"resamples"`
	Unmet       int     `json:"unmet_resamples"`
}

// MarshalJSON writes an operating point that was not found with null
// for every number but the target (docs/json.md: null for what was not
// measured).
func (op Operating) MarshalJSON() ([]byte, error) {
	type plain Operating
	if op.Found {
		return json.Marshal(plain(op))
	}
	return json.Marshal(struct {
		Target      float64  `json:"target_error"`
		Found       bool     `json:"found"`
		Chosen      *Point   `json:"chosen"`
		Test        *Point   `json:"test"`
		ThresholdLo *float64 `json:"threshold_lo"`
		ThresholdHi *float64 `json:"threshold_hi"`
		CoverageLo  *float64 `json:"coverage_lo"`
		CoverageHi  *float64 `json:"coverage_hi"`
		Resamples   *int     `json:"resamples"`
		Unmet       *int     `json:"unmet_resamples"`
	}{Target: op.Target})
}

// Choose picks the threshold meeting target on the calibration items and
// applies it to the test items; resamples bootstrap draws of the
// calibration items, from a PCG generator seeded with seed, give the
// intervals (resamples ≤ 0 means 1000).
func Choose(calConf []float64, calCorrect []bool, testConf []float64, testCorrect []bool, target float64, resamples int, seed uint64) Operating {
	op := Operating{Target: target}
	pt, ok := ThresholdAt(Curve(calConf, calCorrect), target)
	if !ok {
		return op
	}
	op.Found, op.Chosen = true, pt
	op.Test = Apply(testConf, testCorrect, pt.Threshold)
	if resamples <= 0 {
		resamples = 1000
	}
	op.Resamples = resamples
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	n := len(calConf)
	conf := make([]float64, n)
	corr := make([]bool, n)
	thr := make([]float64, 0, resamples)
	cov := make([]float64, 0, resamples)
	for range resamples {
		for i := range n {
			j := rng.IntN(n)
			conf[i], corr[i] = calConf[j], calCorrect[j]
		}
		bp, ok := ThresholdAt(Curve(conf, corr), target)
		if !ok {
			// No threshold meets the target: everything falls back,
			// which the largest confidence there is stands for.
			op.Unmet++
			thr = append(thr, 1)
			cov = append(cov, 0)
			continue
		}
		thr = append(thr, bp.Threshold)
		cov = append(cov, Apply(testConf, testCorrect, bp.Threshold).Coverage)
	}
	slices.Sort(thr)
	slices.Sort(cov)
	op.ThresholdLo, op.ThresholdHi = percentile(thr, 0.025), percentile(thr, 0.975)
	op.CoverageLo, op.CoverageHi = percentile(cov, 0.025), percentile(cov, 0.975)
	return op
}

// percentile is the q-quantile of sorted xs by linear interpolation
// (numpy.percentile's default).
func percentile(sorted []float64, q float64) float64 {
	pos := float64(q * float64(len(sorted)-1))
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	return sorted[lo] + float64((pos-float64(lo))*(sorted[hi]-sorted[lo]))
}

// Softmax is exp(x/T − max) normalised, the candidate probabilities at
// temperature T.
func Softmax(scores []float64, t float64) []float64 {
	m := math.Inf(-1)
	for _, s := range scores {
		m = math.Max(m, s/t)
	}
	out := make([]float64, len(scores))
	var sum float64
	for i, s := range scores {
		out[i] = math.Exp(s/t - m)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// NLL is the mean negative log-likelihood of the gold candidates at
// temperature t: mean over items of logsumexp(s/t) − s_gold/t.
func NLL(scores [][]float64, gold []int, t float64) float64 {
	if len(scores) == 0 {
		return 0
	}
	var sum float64
	for i, s := range scores {
		sum += logSumExp(s, 1/t) - s[gold[i]]/t
	}
	return sum / float64(len(scores))
}

func logSumExp(s []float64, beta float64) float64 {
	m := math.Inf(-1)
	for _, x := range s {
		m = math.Max(m, beta*x)
	}
	var sum float64
	for _, x := range s {
		sum += math.Exp(float64(beta*x) - m)
	}
	return m + math.Log(sum)
}

// Temperature bounds: a fit that runs into them is reported as such.
const (
	MinTemperature = 1e-3
	MaxTemperature = 1e3
)

// FitTemperature returns the temperature T minimising NLL(scores, gold, T),
// as Guo et al.'s temperature scaling fits it. The NLL is convex in
// β = 1/T (a log-sum-exp minus a linear term), so its minimum is the root
// of the derivative mean(E_β[s] − s_gold), found here by bisection on
// log β to machine precision rather than by a fixed number of optimiser
// steps; it is clamped to [MinTemperature, MaxTemperature] (an item set
// where the gold always has the top score pushes T towards 0, one where it
// never does towards ∞). Candidates with one item only, or gold indexes
// outside the candidates, are an error.
func FitTemperature(scores [][]float64, gold []int) (float64, error) {
	if len(scores) == 0 {
		return 0, fmt.Errorf("fit temperature: no items")
	}
	for i, s := range scores {
		if gold[i] < 0 || gold[i] >= len(s) {
			return 0, fmt.Errorf("fit temperature: item %d: gold %d outside %d candidates", i, gold[i], len(s))
		}
		for _, x := range s {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("fit temperature: item %d: score %v", i, x)
			}
		}
	}
	// d(β) = mean_i (E_{softmax(β s_i)}[s_i] − s_i[gold]) is increasing in β.
	deriv := func(beta float64) float64 {
		var sum float64
		for i, s := range scores {
			p := Softmax(s, 1/beta)
			var e float64
			for c, x := range s {
				e += float64(p[c] * x)
			}
			sum += e - s[gold[i]]
		}
		return sum / float64(len(scores))
	}
	lo, hi := math.Log(1/MaxTemperature), math.Log(1/MinTemperature)
	if deriv(math.Exp(lo)) >= 0 {
		return MaxTemperature, nil
	}
	if deriv(math.Exp(hi)) <= 0 {
		return MinTemperature, nil
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if deriv(math.Exp(mid)) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 1 / math.Exp((lo+hi)/2), nil
}

// Report is the selective-prediction summary of a decision task: how the
// decisions were scored, the test split's risk–coverage curve and AURC,
// the operating threshold chosen on the calibration split, and the
// calibration before and after temperature scaling.
type Report struct {
	// Scoring says how a decision was scored (first_token, option).
	Scoring string `json:"scoring"`
	// CalibrationItems and TestItems count the decisions of each split.
	CalibrationItems int `json:"calibration_items"`
	TestItems        int `json:"test_items"`
	// Curve is the test split's risk–coverage curve at T = 1.
	Curve []Point `json:"curve"`
	AURC  float64 `json:"aurc"`
	EAURC float64 `json:"eaurc"`
	// Operating is the threshold meeting the target error on the
	// calibration split, applied to the test split.
	Operating Operating `json:"operating"`
	// Temperature is fitted on the calibration split; ECE and NLL are the
	// test split's at T = 1, the *Calibrated ones at Temperature.
	Temperature   float64 `json:"temperature"`
	ECE           float64 `json:"ece"`
	ECECalibrated float64 `json:"ece_calibrated"`
	NLL           float64 `json:"nll"`
	NLLCalibrated float64 `json:"nll_calibrated"`
	// ByCandidates breaks the test split down by number of candidates.
	ByCandidates []Slice `json:"by_candidates,omitempty"`
}

// Slice is the test items with one number of candidates: their accuracy,
// AURC and what the operating threshold does on them.
type Slice struct {
	Candidates int     `json:"candidates"`
	N          int     `json:"n"`
	Accuracy   float64 `json:"accuracy"`
	Chance     float64 `json:"chance"`
	AURC       float64 `json:"aurc"`
	Coverage   float64 `json:"coverage"`
	Risk       float64 `json:"risk"`
}
