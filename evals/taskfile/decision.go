package taskfile

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/scorers/rank"
	"github.com/pocketeval/pocketeval/scorers/selective"
)

// Decision scorings: how a multiple_choice task with a decision block
// scores its candidates.
const (
	// FirstToken scores each candidate by the log-probability of its
	// label, which must be one token, right after the prompt: the
	// softmax over the candidates is then the softmax of the first
	// token's logits restricted to the labels (one forward pass over the
	// prompt with a prompt cache).
	FirstToken = "first_token"
	// Option scores each candidate by the log-likelihood of its full text,
	// divided by its length (LengthNorm).
	Option = "option"
)

// Length normalisations of Option scoring.
const (
	NormTokens = "tokens" // the continuation's token count (GPT-3's per-token likelihood)
	NormChars  = "chars"  // its length in characters (lm-eval's acc_norm)
	NormNone   = "none"
)

// DecisionConfig is a task file's decision block (pocketeval's): the
// multiple_choice task is a decision made by a small model, evaluated for
// selective prediction (see scorers/selective).
type DecisionConfig struct {
	Score      string // FirstToken or Option
	LengthNorm string // Option only; default NormTokens
	// CalibrationSplit is evaluated too: the operating threshold and the
	// temperature are fitted on it and reported on the test split.
	CalibrationSplit string
	TargetError      float64 // default 0.05
	Bootstrap        int     // resamples for the threshold's interval; default 1000
}

// calibrationPrefix starts the sample IDs of the calibration split.
const calibrationPrefix = "calibration/"

// decisionMetrics are a decision task's metrics, per sample (acc, over the
// test split) and task-level.
// (The fitted temperature and the NLL, which are not proportions, are in
// the summary's decision report and notes.)
// calibration_acc is acc over the calibration split, kept apart so that
// acc is the test split's.
var decisionMetrics = []string{"acc", "coverage_at_error", "risk_at_error", "threshold", "aurc", "eaurc", "ece", "ece_calibrated", "calibration_acc"}

func decodeDecision(c *Config, raw map[string]value) error {
	v, ok := raw["decision"]
	if !ok {
		return nil
	}
	if c.OutputType != MultipleChoice {
		return v.errorf("decision", "a decision block belongs to a multiple_choice task, this one is %s", c.OutputType)
	}
	if m, ok := raw["metric_list"]; ok {
		return m.errorf("metric_list", "a task with a decision block has fixed metrics (%s); remove metric_list", strings.Join(decisionMetrics, ", "))
	}
	d := &DecisionConfig{TargetError: 0.05, Bootstrap: 1000}
	es, err := v.entries("decision")
	if err != nil {
		return err
	}
	for _, e := range es {
		x := scalarValue(e.v.node)
		switch e.key {
		case "score":
			d.Score = e.v.node.Value
			if d.Score != FirstToken && d.Score != Option {
				return e.v.errorf(e.field, "%q: want %s or %s", d.Score, FirstToken, Option)
			}
		case "length_norm":
			d.LengthNorm = e.v.node.Value
			if d.LengthNorm != NormTokens && d.LengthNorm != NormChars && d.LengthNorm != NormNone {
				return e.v.errorf(e.field, "%q: want %s, %s or %s", d.LengthNorm, NormTokens, NormChars, NormNone)
			}
		case "calibration_split":
			d.CalibrationSplit = e.v.node.Value
		case "target_error":
			f, ok := number01(x)
			if !ok || f <= 0 || f >= 1 {
				return e.v.errorf(e.field, "want a number between 0 and 1 (an error rate, e.g. 0.05)")
			}
			d.TargetError = f
		case "bootstrap":
			if !x.IsInt() || x.AsInt() < 100 || x.AsInt() > 100000 {
				return e.v.errorf(e.field, "want an integer from 100 to 100000 (bootstrap resamples)")
			}
			d.Bootstrap = int(x.AsInt())
		default:
			return e.v.errorf(e.field, "unknown key (score, length_norm, calibration_split, target_error and bootstrap are known)")
		}
	}
	if d.Score == "" {
		return v.errorf("decision.score", "missing: %s or %s", FirstToken, Option)
	}
	if d.LengthNorm != "" && d.Score != Option {
		return v.errorf("decision.length_norm", "applies to score: %s only", Option)
	}
	if d.Score == Option && d.LengthNorm == "" {
		d.LengthNorm = NormTokens
	}
	if d.CalibrationSplit == "" {
		return v.errorf("decision.calibration_split", "missing: the split the threshold and the temperature are fitted on")
	}
	if d.CalibrationSplit == c.Data.Test || c.Data.Test == "" && d.CalibrationSplit == c.Data.Valid {
		return v.errorf("decision.calibration_split", "%q is the evaluated split; fit on another one", d.CalibrationSplit)
	}
	c.Decision = d
	return nil
}

func number01(x pyvalue.Value) (float64, bool) {
	switch {
	case x.IsInt():
		return float64(x.AsInt()), true
	case x.IsFloat():
		return x.AsFloat(), true
	}
	return 0, false
}

// readCalibration appends the calibration split's documents to ev (after
// the evaluated ones, so the evaluated prompts and few-shot draws do not
// change) and returns how many evaluated documents come first.
func (t *Task) readCalibration(ev *splitData, dataDir string, files map[string]string) (int, []string, error) {
	d := t.cfg.Decision
	n := len(ev.docs)
	paths, err := t.cfg.Data.resolve(d.CalibrationSplit, dataDir)
	if err != nil {
		return 0, nil, fmt.Errorf("load %s: decision.calibration_split: %w", t.cfg.Name, err)
	}
	cal, err := t.cfg.Data.readSplit(d.CalibrationSplit, paths, files)
	if err != nil {
		return 0, nil, err
	}
	if len(cal.docs) == 0 {
		return 0, nil, fmt.Errorf("load %s: calibration split %q has no documents", t.cfg.Name, d.CalibrationSplit)
	}
	ev.docs = append(ev.docs, cal.docs...)
	ev.lines = append(ev.lines, cal.lines...)
	return n, cal.files, nil
}

// sampleID is the ID of document i: its index in the evaluated split, or
// calibration/<index> in the calibration split.
func (x *extra) sampleID(i int) string {
	if x.nEval > 0 && i >= x.nEval {
		return calibrationPrefix + strconv.Itoa(i-x.nEval)
	}
	return strconv.Itoa(i)
}

// docIndex is sampleID's inverse.
func (x *extra) docIndex(id string) (int, bool) {
	off := 0
	if rest, ok := strings.CutPrefix(id, calibrationPrefix); ok && x.nEval > 0 {
		id, off = rest, x.nEval
	}
	i, err := strconv.Atoi(id)
	if err != nil || i < 0 || off+i >= len(x.docs) || off == 0 && x.nEval > 0 && i >= x.nEval {
		return 0, false
	}
	return off + i, true
}

// decisionDetail is what a decision sample records for aggregation.
type decisionDetail struct {
	calibration bool
	scores      []float64
	gold        int
	confidence  float64
	correct     bool
}

func (t *Task) scoreDecision(s evals.Sample, lls []float64, tokens []int, gold []int) (evals.Score, error) {
	c := t.cfg
	d := c.Decision
	if len(lls) != len(s.Choices) {
		return evals.Score{}, fmt.Errorf("score %s %s: %d log-likelihoods for %d candidates", c.Name, s.ID, len(lls), len(s.Choices))
	}
	if gold[0] < 0 {
		return evals.Score{}, fmt.Errorf("score %s %s: the gold label is not among the candidates %q", c.Name, s.ID, s.Choices)
	}
	scores := make([]float64, len(lls))
	for i, ll := range lls {
		switch {
		case d.Score == FirstToken:
			if tokens[i] != 1 {
				return evals.Score{}, fmt.Errorf("score %s %s: candidate %q is %d tokens after the prompt: first_token scoring needs labels of one token each", c.Name, s.ID, s.Choices[i], tokens[i])
			}
			scores[i] = ll
		case d.LengthNorm == NormTokens:
			scores[i] = ll / float64(max(tokens[i], 1))
		case d.LengthNorm == NormChars:
			scores[i] = ll / float64(max(utf8.RuneCountInString(c.TargetDelimiter+s.Choices[i]), 1))
		default:
			scores[i] = ll
		}
	}
	r, err := rank.Score(scores, gold[0])
	if err != nil {
		return evals.Score{}, fmt.Errorf("score %s %s: %w", c.Name, s.ID, err)
	}
	correct := slices.Contains(gold, r.Pred)
	split := "test"
	sc := evals.Score{Values: map[string]float64{}, Extracted: s.Choices[r.Pred]}
	if strings.HasPrefix(s.ID, calibrationPrefix) {
		split = "calibration"
		sc.Values["calibration_acc"] = evals.Indicator(correct)
	} else {
		sc.Values["acc"] = evals.Indicator(correct)
	}
	sc.Details = map[string]any{
		"mode": ModeLoglik, "decision": d.Score, "split": split, "scores": scores, "gold": gold[0],
		"pred": r.Pred, "confidence": r.Confidence, "correct": correct,
	}
	return sc, nil
}

// readDecision reads a decision sample's details (possibly back from JSON).
func readDecision(sc evals.Score) (decisionDetail, error) {
	dd := decisionDetail{calibration: sc.Details["split"] == "calibration", correct: sc.Details["correct"] == true}
	dd.gold = int(number(sc.Details["gold"]))
	dd.confidence = number(sc.Details["confidence"])
	switch xs := sc.Details["scores"].(type) {
	case []float64:
		dd.scores = xs
	case []any:
		for _, x := range xs {
			dd.scores = append(dd.scores, number(x))
		}
	}
	if len(dd.scores) == 0 || dd.gold < 0 || dd.gold >= len(dd.scores) {
		return dd, errors.New("decision details without candidate scores")
	}
	return dd, nil
}

// aggregateDecision computes the selective-prediction report.
func (t *Task) aggregateDecision(results []evals.SampleResult, agg *evals.Aggregates) {
	d := t.cfg.Decision
	type split struct {
		conf    []float64
		correct []bool
		scores  [][]float64
		gold    []int
	}
	var cal, test split
	byK := map[int]*split{}
	bad := 0
	for _, r := range results {
		dd, err := readDecision(r.Score)
		if err != nil {
			bad++
			continue
		}
		sp := &test
		if dd.calibration {
			sp = &cal
		} else if byK[len(dd.scores)] == nil {
			byK[len(dd.scores)] = &split{}
		}
		for _, x := range []*split{sp, byK[len(dd.scores)]} {
			if x == nil || dd.calibration && x != sp {
				continue
			}
			x.conf = append(x.conf, dd.confidence)
			x.correct = append(x.correct, dd.correct)
			x.scores = append(x.scores, dd.scores)
			x.gold = append(x.gold, dd.gold)
		}
	}
	if bad > 0 {
		agg.Notes = append(agg.Notes, fmt.Sprintf("%d samples have no decision details and are left out of the selective-prediction numbers", bad))
	}
	rep := &selective.Report{Scoring: d.Score, CalibrationItems: len(cal.conf), TestItems: len(test.conf)}
	if d.Score == Option {
		rep.Scoring += "/" + d.LengthNorm
	}
	rep.Curve = selective.Curve(test.conf, test.correct)
	rep.AURC, rep.EAURC = selective.AURC(test.conf, test.correct)
	rep.ECE = rank.ECE(test.conf, test.correct)
	rep.NLL = selective.NLL(test.scores, test.gold, 1)
	rep.Temperature = 1
	if len(cal.conf) > 0 {
		rep.Operating = selective.Choose(cal.conf, cal.correct, test.conf, test.correct, d.TargetError, d.Bootstrap, 30)
		if temp, err := selective.FitTemperature(cal.scores, cal.gold); err == nil {
			rep.Temperature = temp
		}
	} else {
		rep.Operating = selective.Operating{Target: d.TargetError}
		agg.Notes = append(agg.Notes, "no calibration decisions: the threshold and the temperature are not fitted (T = 1)")
	}
	var calConf []float64
	for _, s := range test.scores {
		// The top candidate keeps its place at any T > 0.
		calConf = append(calConf, slices.Max(selective.Softmax(s, rep.Temperature)))
	}
	rep.ECECalibrated = rank.ECE(calConf, test.correct)
	rep.NLLCalibrated = selective.NLL(test.scores, test.gold, rep.Temperature)
	for _, k := range slices.Sorted(maps.Keys(byK)) {
		x := byK[k]
		acc := 0
		for _, ok := range x.correct {
			if ok {
				acc++
			}
		}
		sl := selective.Slice{Candidates: k, N: len(x.conf), Accuracy: float64(acc) / float64(len(x.conf)), Chance: 1 / float64(k)}
		sl.AURC, _ = selective.AURC(x.conf, x.correct)
		if rep.Operating.Found {
			pt := selective.Apply(x.conf, x.correct, rep.Operating.Chosen.Threshold)
			sl.Coverage, sl.Risk = pt.Coverage, pt.Risk
		}
		rep.ByCandidates = append(rep.ByCandidates, sl)
		agg.Breakdown[fmt.Sprintf("candidates:%02d", k)] = map[string]float64{
			"acc": sl.Accuracy, "chance": sl.Chance, "aurc": sl.AURC, "coverage_at_error": sl.Coverage, "risk_at_error": sl.Risk,
		}
	}
	agg.Decision = rep
	m := agg.Metrics
	m["aurc"], m["eaurc"] = rep.AURC, rep.EAURC
	m["ece"], m["ece_calibrated"] = rep.ECE, rep.ECECalibrated
	op := rep.Operating
	// The test split's numbers are over its decisions, the threshold over
	// the calibration split's; with no threshold meeting the target there
	// is no threshold and no risk (no decision is accepted): they are left
	// out (docs/decisions.md), and coverage_at_error is 0.
	m["coverage_at_error"] = op.Test.Coverage
	agg.N = map[string]int{"aurc": rep.TestItems, "eaurc": rep.TestItems, "ece": rep.TestItems, "ece_calibrated": rep.TestItems, "coverage_at_error": rep.TestItems}
	if op.Found {
		m["risk_at_error"], m["threshold"] = op.Test.Risk, op.Chosen.Threshold
		agg.N["risk_at_error"], agg.N["threshold"] = rep.TestItems, rep.CalibrationItems
	}
	if op.Found {
		agg.Intervals = map[string][2]float64{
			"coverage_at_error": {op.CoverageLo, op.CoverageHi},
			"threshold":         {op.ThresholdLo, op.ThresholdHi},
		}
	}
	if op.Found {
		agg.Notes = append(agg.Notes, fmt.Sprintf("decisions scored by %s; threshold %.4g (95%% bootstrap interval %.4g–%.4g over %d resamples of %d calibration decisions) keeps the calibration error at %.3g ≤ %.3g; on the %d test decisions it covers %.1f%% (95%% interval %.1f–%.1f%%) with %.1f%% errors",
			rep.Scoring, op.Chosen.Threshold, op.ThresholdLo, op.ThresholdHi, op.Resamples, rep.CalibrationItems, op.Chosen.Risk, op.Target, rep.TestItems,
			100*op.Test.Coverage, 100*op.CoverageLo, 100*op.CoverageHi, 100*op.Test.Risk))
	} else if len(cal.conf) > 0 {
		agg.Notes = append(agg.Notes, fmt.Sprintf("decisions scored by %s; no threshold keeps the %d calibration decisions' error at or below %.3g: coverage_at_error is 0 (every decision falls back), and there is no threshold, no risk_at_error (no decision is accepted) and nothing to bootstrap", rep.Scoring, rep.CalibrationItems, op.Target))
	}
	agg.Notes = append(agg.Notes, fmt.Sprintf("aurc: area under the test split's risk–coverage curve (Geifman et al. 2019), e-aurc its excess over a perfect ordering; temperature %.4g fitted on the calibration split by NLL (Guo et al. 2017): test ECE %.4f → %.4f, NLL %.4f → %.4f", rep.Temperature, rep.ECE, rep.ECECalibrated, rep.NLL, rep.NLLCalibrated))
}
