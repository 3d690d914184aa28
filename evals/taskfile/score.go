package taskfile

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/scorers/choice"
	"github.com/pocketeval/pocketeval/scorers/classify"
	"github.com/pocketeval/pocketeval/scorers/jsonx"
	"github.com/pocketeval/pocketeval/scorers/match"
	"github.com/pocketeval/pocketeval/scorers/rank"
	"github.com/pocketeval/pocketeval/scorers/textsim"
)

// Sample.Meta keys set by Load.
const (
	metaGold    = "gold"          // []int: gold choice indices (-1: not among the choices)
	metaTargets = "targets"       // []string: acceptable answers of generate_until tasks
	metaObject  = "target_object" // map[string]any: the target of JSON metrics
)

// setGold fills the sample's gold fields from doc_to_target as lm-eval's
// process_results reads it.
func setGold(s *evals.Sample, gold pyvalue.Value, choices []pyvalue.Value, output string) {
	s.Meta = map[string]any{}
	if output == MultipleChoice {
		var idx []int
		add := func(g pyvalue.Value) {
			i := -1
			switch {
			case g.IsInt():
				if g.AsInt() >= 0 && int(g.AsInt()) < len(choices) {
					i = int(g.AsInt())
				}
			case g.IsString():
				for k, c := range choices {
					if c.IsString() && c.AsString() == g.AsString() {
						i = k
						break
					}
				}
			}
			idx = append(idx, i)
		}
		if gold.IsList() {
			for _, g := range gold.AsList().Items {
				add(g)
			}
		} else {
			add(gold)
		}
		s.Meta[metaGold] = idx
		return
	}
	if gold.IsDict() {
		s.Meta[metaObject] = toGo(gold)
	}
	var targets []string
	one := func(g pyvalue.Value) {
		if choices != nil && g.IsInt() && g.AsInt() >= 0 && int(g.AsInt()) < len(choices) {
			g = choices[g.AsInt()]
		}
		targets = append(targets, pyvalue.Str(g))
	}
	if gold.IsList() {
		for _, g := range gold.AsList().Items {
			one(g)
		}
	} else {
		one(gold)
	}
	s.Meta[metaTargets] = targets
}

// Score judges one response.
func (t *Task) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	c := t.cfg
	if c.OutputType == MultipleChoice {
		gold, _ := s.Meta[metaGold].([]int)
		if len(gold) == 0 {
			return evals.Score{}, fmt.Errorf("score %s %s: the sample has no gold choice", c.Name, s.ID)
		}
		if t.mode == ModeLoglik || len(out.Loglik) > 0 {
			return t.scoreLoglik(s, out, gold)
		}
		return t.scoreChoiceGen(s, out, gold), nil
	}
	return t.scoreGen(s, out)
}

func (t *Task) scoreLoglik(s evals.Sample, out evals.Output, gold []int) (evals.Score, error) {
	c := t.cfg
	if len(out.Loglik) == 0 {
		return evals.Score{}, fmt.Errorf("score %s %s: log-likelihood mode but the output has no log-likelihoods", c.Name, s.ID)
	}
	if c.Decision != nil {
		tokens := make([]int, len(out.Loglik))
		for i, r := range out.Loglik {
			tokens[i] = r.Tokens
		}
		return t.scoreDecision(s, out.LogProbs(), tokens, gold)
	}
	p, err := choice.PickLoglik(out.LogProbs(), s.Choices)
	if err != nil {
		return evals.Score{}, fmt.Errorf("score %s %s: %w", c.Name, s.ID, err)
	}
	sc := evals.Score{
		Values:    map[string]float64{},
		Extracted: s.Choices[p.Index],
		Details:   map[string]any{"mode": ModeLoglik, "logprobs": p.LogProbs, "pred": p.Index, "pred_norm": p.NormIndex},
	}
	if slices.Contains(gold, -1) {
		sc.Details["warning"] = "gold label is not among the choices; scored as wrong (lm-eval does the same)"
	}
	var r rank.Result
	needRank := false
	for _, m := range c.Metrics {
		switch m.Name {
		case "brier_score", "mrr", "ece":
			needRank = true
		}
	}
	if needRank {
		if gold[0] < 0 {
			return evals.Score{}, fmt.Errorf("score %s %s: gold label is not among the choices %q", c.Name, s.ID, s.Choices)
		}
		if r, err = rank.Score(p.LogProbs, gold[0]); err != nil {
			return evals.Score{}, fmt.Errorf("score %s %s: %w", c.Name, s.ID, err)
		}
		sc.Details["confidence"] = r.Confidence
	}
	for _, m := range c.Metrics {
		switch m.Name {
		case "acc":
			sc.Values["acc"] = evals.Indicator(slices.Contains(gold, p.Index))
		case "acc_norm":
			sc.Values["acc_norm"] = evals.Indicator(slices.Contains(gold, p.NormIndex))
		case "brier_score":
			sc.Values["brier_score"] = r.Brier
		case "mrr":
			sc.Values["mrr"] = r.ReciprocalRank()
		case "ece":
			sc.Details["correct"] = r.Correct
		}
	}
	return sc, nil
}

// scoreChoiceGen is the generative variant of multiple_choice: the option
// is extracted from the response by the task's answer_rule — pocketeval's
// rule by default (scorers/choice: by letter when the choices are
// letters, else by letter or text), or an official extractor.
func (t *Task) scoreChoiceGen(s evals.Sample, out evals.Output, gold []int) evals.Score {
	n := len(s.Choices)
	strictText := out.Text
	for _, cue := range []string{"Answer:", "答案：", "答案是："} {
		if strings.HasSuffix(strings.TrimRight(out.Prompt, " "), cue) {
			strictText = cue + out.Text
			break
		}
	}
	strict := choice.ExtractStrict(strictText, n)
	rule := t.cfg.AnswerRule
	flex := strict
	if rule.Name != choice.RulePocketeval {
		flex = rule.Extract(out.Text, s.Choices)
	} else if !flex.Found() && flex.Method == "" {
		flex = rule.Extract(out.Text, s.Choices)
	}
	extracted := ""
	if flex.Found() {
		extracted = s.Choices[flex.Index]
	}
	details := map[string]any{"mode": ModeGen, "method": flex.Method, "strict": strict.Letter, "answer_rule": rule.Name}
	if !flex.Found() && flex.Letter != "" {
		details["letter"] = flex.Letter // an official rule's letter that is no option
	}
	return evals.Score{
		Values: map[string]float64{
			"acc":               evals.Indicator(flex.Found() && slices.Contains(gold, flex.Index)),
			"acc_strict":        evals.Indicator(strict.Found() && slices.Contains(gold, strict.Index)),
			"extraction_failed": evals.Indicator(!flex.Found() && flex.Letter == ""),
		},
		Extracted:        extracted,
		ExtractionFailed: !flex.Found() && flex.Letter == "",
		Details:          details,
	}
}

func (t *Task) scoreGen(s evals.Sample, out evals.Output) (evals.Score, error) {
	c := t.cfg
	targets, _ := s.Meta[metaTargets].([]string)
	sc := evals.Score{Values: map[string]float64{}, Details: map[string]any{}}
	var labels []string
	if c.DocToChoice.set {
		labels = s.Choices
	}
	var regexErrs []string
	for fi, f := range c.Filters {
		resp, fallback, ferr := f.Apply(out.Text)
		if ferr != nil {
			regexErrs = append(regexErrs, f.Name+": "+ferr.Error())
		}
		if fi == 0 {
			sc.Extracted = resp
			sc.ExtractionFailed = fallback
		}
		if len(c.Filters) > 1 {
			sc.Details["filtered,"+f.Name] = resp
		}
		for _, m := range c.Metrics {
			key := func(n string) string { return metricName(n, f.Name) }
			switch m.Name {
			case "exact_match":
				sc.Values[key("exact_match")] = anyTarget(targets, func(tg string) bool {
					ok, err := m.Exact.Exact(resp, tg)
					if err != nil {
						regexErrs = append(regexErrs, "exact_match regexes_to_ignore: "+err.Error())
					}
					return ok
				})
			case "normalized_match":
				sc.Values[key("normalized_match")] = anyTarget(targets, func(tg string) bool { return match.Normalized(resp, tg) })
			case "prefix_match":
				sc.Values[key("prefix_match")] = anyTarget(targets, func(tg string) bool { return match.Prefix(resp, tg) })
			case "chrf":
				st := textsim.ChrFSegment(resp, targets)
				sc.Values[key("chrf")] = st.Score()
				sc.Details[key("chrf_stats")] = st
			case "rougeL", "rougeL_chars":
				best := 0.0
				for _, tg := range targets {
					var prf textsim.PRF
					if m.Name == "rougeL" {
						prf = textsim.RougeL(tg, resp)
					} else {
						prf = textsim.RougeLChars(tg, resp)
					}
					best = math.Max(best, prf.F)
				}
				sc.Values[key(m.Name)] = best
			case "label_accuracy", "macro_f1":
				pred := classify.MatchLabel(resp, labels)
				sc.Details[key("label")] = pred
				if fi == 0 {
					// The answer is the label; a response that names
					// none (or several) is an extraction failure.
					sc.Extracted = pred
					sc.ExtractionFailed = sc.ExtractionFailed || pred == classify.NoLabel
				}
				if m.Name == "label_accuracy" {
					sc.Values[key("label_accuracy")] = evals.Indicator(len(targets) > 0 && pred == targets[0])
				}
			case "json_fields", "json_exact":
				obj, err := jsonx.Extract(resp)
				sc.Values[key("json_valid")] = evals.Indicator(err == nil)
				target, terr := targetObject(s)
				if terr != nil {
					return evals.Score{}, fmt.Errorf("score %s %s: %w", c.Name, s.ID, terr)
				}
				cmp := jsonx.Compare(obj, target, m.Fields)
				if m.Name == "json_exact" {
					sc.Values[key("json_exact")] = evals.Indicator(err == nil && cmp.Exact)
					continue
				}
				_, _, f1 := cmp.Total.PRF()
				if cmp.Total == (jsonx.Counts{}) {
					f1 = 1 // nothing to extract and nothing extracted
				}
				sc.Values[key("json_field_f1")] = f1
				fields := map[string]any{}
				for name, cnt := range cmp.Fields {
					fields[name] = []int{cnt.TP, cnt.FP, cnt.FN}
				}
				sc.Details[key("json_fields")] = fields
			}
		}
	}
	if len(regexErrs) > 0 {
		// A regular expression ran out of time: the sample keeps the
		// fallback (unanswered) and says why; the run goes on.
		sc.ExtractionFailed = true
		sc.Details["regex_error"] = regexErrs
	}
	return sc, nil
}

func anyTarget(targets []string, ok func(string) bool) float64 {
	for _, t := range targets {
		if ok(t) {
			return 1
		}
	}
	return 0
}

// targetObject is the target of JSON metrics: a mapping in the document,
// or a string holding a JSON object.
func targetObject(s evals.Sample) (map[string]any, error) {
	if obj, ok := s.Meta[metaObject].(map[string]any); ok {
		return obj, nil
	}
	targets, _ := s.Meta[metaTargets].([]string)
	if len(targets) == 0 {
		return nil, fmt.Errorf("no target object")
	}
	obj, err := jsonx.Extract(targets[0])
	if err != nil {
		return nil, fmt.Errorf("the target is not a JSON object: %q", targets[0])
	}
	return obj, nil
}

func toGo(v pyvalue.Value) any {
	switch {
	case v.IsNone(), v.IsUndefined():
		return nil
	case v.IsBool():
		return v.AsBool()
	case v.IsInt():
		return float64(v.AsInt())
	case v.IsFloat():
		if math.IsNaN(v.AsFloat()) || math.IsInf(v.AsFloat(), 0) {
			return nil
		}
		return v.AsFloat()
	case v.IsString():
		return v.AsString()
	case v.IsList():
		out := make([]any, v.AsList().Len())
		for i, it := range v.AsList().Items {
			out[i] = toGo(it)
		}
		return out
	case v.IsDict():
		out := map[string]any{}
		for _, k := range v.AsDict().OrderedKeys() {
			it, _ := v.AsDict().Get(k)
			out[k] = toGo(it)
		}
		return out
	}
	return v.String()
}
