package mc

import (
	"fmt"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/stats"
)

// aggregation is a benchmark's official way of combining subjects.
type aggregation struct {
	// categories returns a subject's categories (CMMLU's "China specific"
	// overlaps the others) and whether the subject is known.
	categories    func(subject string) ([]string, bool)
	categoryOrder []string
	// macro: the headline and category numbers are unweighted means over
	// subjects; otherwise means over questions (micro).
	macro bool
	// convention explains where the choice comes from.
	convention string
}

var mmluAggregation = aggregation{
	categories: func(s string) ([]string, bool) {
		c, ok := mmluCategory[s]
		return []string{c}, ok
	},
	categoryOrder: []string{mmluSTEM, mmluHumanities, mmluSocial, mmluOther},
	macro:         false,
	convention: "MMLU headline is micro (mean over all questions), as hendrycks/test evaluate.py (weighted_acc) and lm-eval (weight_by_size) compute it; " +
		"categories are micro over their questions with the official hendrycks subject→category map (anatomy and other health subjects under \"other\", unlike lm-eval which files anatomy under STEM); " +
		"*_macro is the unweighted mean over subjects, for comparison with tables that average subjects",
}

var cevalAggregation = aggregation{
	categories: func(s string) ([]string, bool) {
		c, ok := cevalSubjects[s]
		if !ok {
			return nil, false
		}
		cats := []string{c.category}
		if cevalHard[s] {
			cats = append(cats, catHard)
		}
		return cats, true
	},
	categoryOrder: []string{catSTEM, catSocial, catHumanities, catOther, catHard},
	macro:         true,
	convention: "C-Eval headline is macro (mean of the 52 subject accuracies), the C-Eval paper's \"Average\"; categories (STEM, Social Science, Humanities, Other, and the 8-subject Hard set) are macro over their subjects; " +
		"*_micro weights by questions as lm-eval's ceval-valid group does. Scores are on the val split (test answers are private)",
}

var cmmluAggregation = aggregation{
	categories: func(s string) ([]string, bool) {
		c, ok := cmmluSubjects[s]
		return c.categories, ok
	},
	categoryOrder: []string{catSTEM, catHumanities, catSocial, catOther, catChina},
	macro:         true,
	convention: "CMMLU headline is macro (mean of the 67 subject accuracies) and categories are macro over their subjects, as CMMLU src/mp_utils.py get_results computes them (confirmed by the authors, haonan-li/CMMLU#39); " +
		"\"China specific\" overlaps the other four; *_micro weights by questions",
}

var arcAggregation = aggregation{
	categories: func(string) ([]string, bool) { return nil, true },
	convention: "ARC-Challenge has no subjects: the headline is the mean over its questions",
}

// loglikRun reports whether results come from a log-likelihood run: the
// task's mode, or — when the runner did not switch the task — the metrics
// the samples carry.
func (t *Task) loglikRun(results []evals.SampleResult) bool {
	if t.mode == ModeLoglik {
		return true
	}
	for _, r := range results {
		if _, ok := r.Score.Values[MetricAcc]; ok {
			return true
		}
	}
	return false
}

func accMetrics(loglik bool) []string {
	if loglik {
		return []string{MetricAcc, MetricAccNorm}
	}
	return []string{MetricFlexible, MetricStrict}
}

// Aggregate computes per-subject accuracy, the official category averages
// and the micro and macro headline numbers. Metrics gets <metric>_micro and
// <metric>_macro for each accuracy metric; Breakdown has one entry per
// subject and one "category:<name>" entry per category whose plain metric
// names hold the official (micro or macro) value. The notes say which is
// the benchmark's headline and record the scoring mode.
func (t *Task) Aggregate(results []evals.SampleResult) evals.Aggregates {
	agg := evals.Aggregates{
		Metrics:   map[string]float64{},
		Breakdown: map[string]map[string]float64{},
	}
	loglik := t.loglikRun(results)
	metrics := accMetrics(loglik)
	if !loglik && t.b.official != "" {
		metrics = append(metrics, MetricOfficial)
	}
	all := &evals.Tally{}
	var subjects evals.Groups
	for _, r := range results {
		all.Add(r.Score.Values)
		if r.Sample.Group != "" {
			subjects.Add(r.Sample.Group, r.Score.Values)
		}
	}
	mode := "scoring mode: " + ModeGen
	if loglik {
		mode = "scoring mode: " + ModeLoglik
		if t.b.loglikText {
			mode += " (argmax of option-text log-likelihood; acc_norm divides by the option's length in characters, as lm-eval)"
		} else {
			mode += " (argmax of the answer letter's log-likelihood after the official prompt; acc_norm equals acc because all letters have one character)"
		}
	} else {
		mode += " (letter extracted from generated text; acc_flexible is pocketeval's rule, acc_strict counts only explicit answer statements)"
		if t.b.official != "" {
			mode += "; acc_official, the primary metric, is the official tool's rule: " + t.b.official
		} else {
			mode += "; acc_flexible is the primary metric"
		}
	}
	agg.Notes = append(agg.Notes, mode)

	names := subjects.Names()
	subjects.Breakdown(agg.Breakdown)
	agg.Stderr = map[string]float64{}
	for _, m := range metrics {
		agg.Metrics[m+"_micro"] = all.Mean(m)
		if len(names) > 0 {
			agg.Metrics[m+"_macro"] = subjects.Macro(names, m)
			means, ns := make([]float64, len(names)), make([]int, len(names))
			for i, s := range names {
				means[i], ns[i] = subjects.Get(s).Mean(m), subjects.Get(s).N
			}
			agg.Stderr[m+"_macro"] = stats.MacroStderr(means, ns)
		}
	}

	// Categories.
	members := map[string][]string{}
	for _, s := range names {
		cats, _ := t.b.agg.categories(s)
		for _, c := range cats {
			members[c] = append(members[c], s)
		}
	}
	for _, c := range t.b.agg.categoryOrder {
		subs := members[c]
		if len(subs) == 0 {
			continue
		}
		ct := &evals.Tally{}
		for _, s := range subs {
			ct.Merge(subjects.Get(s))
		}
		b := map[string]float64{"n": float64(ct.N), "subjects": float64(len(subs))}
		for _, m := range metrics {
			mi, ma := ct.Mean(m), subjects.Macro(subs, m)
			b[m+"_micro"], b[m+"_macro"] = mi, ma
			if t.b.agg.macro {
				b[m] = ma
			} else {
				b[m] = mi
			}
		}
		agg.Breakdown["category:"+c] = b
	}

	primary := metrics[0]
	if len(names) > 0 {
		kind := "micro"
		if t.b.agg.macro {
			kind = "macro"
		}
		agg.Notes = append(agg.Notes, fmt.Sprintf("headline: %s_%s = %.4f over %d subjects and %d samples (%s_micro = %.4f, %s_macro = %.4f)",
			primary, kind, agg.Metrics[primary+"_"+kind], len(names), all.N,
			primary, agg.Metrics[primary+"_micro"], primary, agg.Metrics[primary+"_macro"]))
	} else {
		agg.Notes = append(agg.Notes, fmt.Sprintf("headline: %s_micro = %.4f over %d samples", primary, agg.Metrics[primary+"_micro"], all.N))
	}
	agg.Notes = append(agg.Notes, t.b.agg.convention)
	return agg
}
