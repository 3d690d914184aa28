package taskfile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/scorers/classify"
	"github.com/pocketeval/pocketeval/scorers/jsonx"
	"github.com/pocketeval/pocketeval/scorers/rank"
	"github.com/pocketeval/pocketeval/scorers/textsim"
)

// Aggregate computes the task-level metrics that are not means over
// samples: macro-F1 with per-label scores and the confusion matrix,
// micro-F1 and per-field scores of JSON extraction, corpus chrF, and ECE.
// Scores may come from a resumed run, whose details went through JSON.
func (t *Task) Aggregate(results []evals.SampleResult) evals.Aggregates {
	c := t.cfg
	agg := evals.Aggregates{Metrics: map[string]float64{}, Breakdown: map[string]map[string]float64{}}
	if c.OutputType == MultipleChoice {
		if t.mode == ModeLoglik && c.Decision != nil {
			t.aggregateDecision(results, &agg)
			return agg
		}
		if t.mode == ModeLoglik && hasMetric(c, "ece") {
			var conf []float64
			var correct []bool
			for _, r := range results {
				conf = append(conf, number(r.Score.Details["confidence"]))
				correct = append(correct, r.Score.Details["correct"] == true)
			}
			agg.Metrics["ece"] = rank.ECE(conf, correct)
			agg.Notes = append(agg.Notes, fmt.Sprintf("ece: expected calibration error of the top choice's softmax probability over the choices, %d equal-width bins", rank.Bins))
		}
		if t.mode == ModeGen {
			// One of the two library strings that name a flag (issue 50):
			// every generative multiple-choice run stores this note in
			// summary.json, so its wording is part of the results bytes,
			// which stay as they were.
			agg.Notes = append(agg.Notes, "multiple_choice scored generatively: the option is extracted from the response (acc); acc_norm and log-likelihood metrics need --mode loglik")
		}
		return agg
	}
	for _, f := range c.Filters {
		key := func(n string) string { return metricName(n, f.Name) }
		prefix := ""
		if f.Name != defaultFilterName {
			prefix = f.Name + ":"
		}
		if hasMetric(c, "macro_f1") || hasMetric(c, "label_accuracy") {
			var m classify.Confusion
			for _, r := range results {
				targets, _ := r.Sample.Meta[metaTargets].([]string)
				gold := ""
				if len(targets) > 0 {
					gold = targets[0]
				}
				pred, _ := r.Score.Details[key("label")].(string)
				m.Add(gold, pred)
			}
			if hasMetric(c, "macro_f1") {
				agg.Metrics[key("macro_f1")] = m.MacroF1()
			}
			for _, row := range m.PerLabel() {
				agg.Breakdown[prefix+"label:"+row.Label] = map[string]float64{
					"precision": row.Precision, "recall": row.Recall, "f1": row.F1, "support": float64(row.Support),
				}
			}
			for _, g := range m.Labels() {
				cells := map[string]float64{}
				for _, p := range append(m.Labels(), classify.NoLabel) {
					if n := m.Count(g, p); n > 0 {
						cells[labelName(p)] = float64(n)
					}
				}
				agg.Breakdown[prefix+"confusion:"+g] = cells
			}
			agg.Notes = append(agg.Notes, key("macro_f1")+": unweighted mean F1 over the labels seen as gold or prediction; responses matching no label count as errors (confusion column \"(none)\")",
				"confusion matrix ("+f.Name+"):\n"+strings.TrimRight(m.String(), "\n"))
		}
		if hasMetric(c, "json_fields") {
			total := jsonx.Counts{}
			perField := map[string]jsonx.Counts{}
			for _, r := range results {
				fields, _ := r.Score.Details[key("json_fields")].(map[string]any)
				for name, v := range fields {
					cnt := counts(v)
					total.Add(cnt)
					pf := perField[name]
					pf.Add(cnt)
					perField[name] = pf
				}
			}
			_, _, f1 := total.PRF()
			agg.Metrics[key("json_field_f1_micro")] = f1
			for _, name := range slices.Sorted(maps.Keys(perField)) {
				p, r, f := perField[name].PRF()
				cnt := perField[name]
				agg.Breakdown[prefix+"field:"+name] = map[string]float64{"precision": p, "recall": r, "f1": f, "tp": float64(cnt.TP), "fp": float64(cnt.FP), "fn": float64(cnt.FN)}
			}
			agg.Notes = append(agg.Notes, key("json_field_f1_micro")+": F1 of field values summed over all samples (a wrong value is one false positive and one false negative)")
		}
		if hasMetric(c, "chrf") {
			var total textsim.ChrFStats
			for _, r := range results {
				total.Add(chrfStats(r.Score.Details[key("chrf_stats")]))
			}
			agg.Metrics[key("chrf_corpus")] = total.Score()
			agg.Notes = append(agg.Notes, key("chrf")+" is sentence-level chrF averaged over samples; "+key("chrf_corpus")+" is sacrebleu's corpus chrF (statistics summed, then one F-score)")
		}
	}
	return agg
}

func hasMetric(c *Config, name string) bool {
	for _, m := range c.Metrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

func labelName(l string) string {
	if l == classify.NoLabel {
		return "(none)"
	}
	return l
}

// number reads a float from a detail that may have gone through JSON.
func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return 0
}

// counts reads [tp, fp, fn] from a detail.
func counts(v any) jsonx.Counts {
	switch x := v.(type) {
	case []int:
		if len(x) == 3 {
			return jsonx.Counts{TP: x[0], FP: x[1], FN: x[2]}
		}
	case []any:
		if len(x) == 3 {
			return jsonx.Counts{TP: int(number(x[0])), FP: int(number(x[1])), FN: int(number(x[2]))}
		}
	}
	return jsonx.Counts{}
}

// chrfStats reads chrF statistics from a detail.
func chrfStats(v any) textsim.ChrFStats {
	switch x := v.(type) {
	case textsim.ChrFStats:
		return x
	case []any:
		var st textsim.ChrFStats
		for i := 0; i < len(st) && i < len(x); i++ {
			row, _ := x[i].([]any)
			for j := 0; j < 3 && j < len(row); j++ {
				st[i][j] = int(number(row[j]))
			}
		}
		return st
	}
	return textsim.ChrFStats{}
}
