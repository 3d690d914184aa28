package taskfile

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/scorers/match"
)

// MetricSpec is one entry of metric_list.
type MetricSpec struct {
	Name   string
	Exact  match.ExactOptions // exact_match's options
	Fields []string           // json_fields / json_exact: fields compared (nil: all)
}

// metricInfo describes a metric name task files may use.
type metricInfo struct {
	output string // output type it applies to
	// perSample are the metric names Score reports for it; aggregate the
	// task-level ones Aggregate adds.
	perSample []string
	aggregate []string
	doc       string
}

// metricTable lists the metrics of task files: lm-eval's (acc, acc_norm,
// exact_match, brier_score) and pocketeval's app-task metrics.
var metricTable = map[string]metricInfo{
	"acc":              {MultipleChoice, []string{"acc"}, nil, "lm-eval: the option with the highest log-likelihood is the gold one (accuracy@1)"},
	"acc_norm":         {MultipleChoice, []string{"acc_norm"}, nil, "lm-eval: the same with log-likelihood divided by the option's length in characters"},
	"brier_score":      {MultipleChoice, []string{"brier_score"}, nil, "lm-eval: Σ (softmax(loglik) − one-hot)², lower is better"},
	"mrr":              {MultipleChoice, []string{"mrr"}, nil, "reciprocal rank of the gold option by log-likelihood; the mean is the MRR"},
	"ece":              {MultipleChoice, nil, []string{"ece"}, "expected calibration error of the top option's softmax probability, 10 equal-width bins"},
	"exact_match":      {GenerateUntil, []string{"exact_match"}, nil, "lm-eval exact_match with ignore_case, ignore_punctuation, ignore_numbers, regexes_to_ignore"},
	"normalized_match": {GenerateUntil, []string{"normalized_match"}, nil, "equality after folding width, case, punctuation, articles and spaces"},
	"prefix_match":     {GenerateUntil, []string{"prefix_match"}, nil, "the normalised response starts with the normalised target (keyword completion)"},
	"chrf":             {GenerateUntil, []string{"chrf"}, []string{"chrf_corpus"}, "sacrebleu chrF (nc 6, nw 0, beta 2); per sample and over the corpus"},
	"rougeL":           {GenerateUntil, []string{"rougeL"}, nil, "rouge-score rougeL F-measure (default tokenizer, no stemmer)"},
	"rougeL_chars":     {GenerateUntil, []string{"rougeL_chars"}, nil, "rougeL F-measure with one token per non-ASCII letter (Chinese)"},
	"label_accuracy":   {GenerateUntil, []string{"label_accuracy"}, nil, "the response maps to the gold label of doc_to_choice"},
	"macro_f1":         {GenerateUntil, nil, []string{"macro_f1"}, "macro-F1 over labels, with a confusion matrix in the breakdown"},
	"json_fields":      {GenerateUntil, []string{"json_field_f1", "json_valid"}, []string{"json_field_f1_micro"}, "JSON per-field precision/recall/F1 against the target object"},
	"json_exact":       {GenerateUntil, []string{"json_exact", "json_valid"}, nil, "the response's JSON object matches the target on every field"},
}

// MetricNames lists the metric names task files may use.
func MetricNames() []string {
	out := make([]string, 0, len(metricTable))
	for k := range metricTable {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func decodeMetrics(c *Config, raw map[string]value) ([]MetricSpec, error) {
	v, ok := raw["metric_list"]
	if !ok {
		// lm-eval's defaults per output type.
		if c.OutputType == MultipleChoice {
			return []MetricSpec{{Name: "acc"}, {Name: "acc_norm"}}, nil
		}
		if d, ok := loglikDefaultMetrics[c.OutputType]; ok {
			return d, nil
		}
		return []MetricSpec{{Name: "exact_match"}}, nil
	}
	if v.node.Kind != yaml.SequenceNode || len(v.node.Content) == 0 {
		return nil, v.errorf("metric_list", "want a list of {metric: ...} entries")
	}
	var out []MetricSpec
	seen := map[string]bool{}
	for i, e := range v.node.Content {
		ev := value{node: e, file: v.file}
		field := fmt.Sprintf("metric_list[%d]", i)
		if e.Kind != yaml.MappingNode {
			return nil, ev.errorf(field, "want a mapping with a metric")
		}
		args := map[string]*yaml.Node{}
		for j := 0; j+1 < len(e.Content); j += 2 {
			args[e.Content[j].Value] = e.Content[j+1]
		}
		mn, ok := args["metric"]
		if !ok {
			return nil, ev.errorf(field+".metric", "missing")
		}
		m := MetricSpec{Name: mn.Value}
		info, known := metricOf(c.OutputType, m.Name)
		if !known {
			return nil, ev.errorf(field+".metric", "%q: %w (known: %s)", m.Name, ErrUnsupported, strings.Join(MetricNames(), ", "))
		}
		if info.output != c.OutputType {
			return nil, ev.errorf(field+".metric", "%s applies to %s tasks, this one is %s", m.Name, info.output, c.OutputType)
		}
		if seen[m.Name] {
			return nil, ev.errorf(field+".metric", "%s listed twice", m.Name)
		}
		seen[m.Name] = true
		for k, n := range args {
			av := value{node: n, file: v.file}
			af := field + "." + k
			switch {
			case k == "metric", k == "higher_is_better":
			case k == "aggregation":
				if isLoglikType(c.OutputType) {
					if !loglikAggregation(c.OutputType, m.Name, n.Value) {
						return nil, av.errorf(af, "%q: %w (%s takes %s)", n.Value, ErrUnsupported, m.Name, loglikAggregationOf(c.OutputType, m.Name))
					}
				} else if n.Value != "mean" && !(m.Name == "brier_score" && n.Value == "brier_score") {
					return nil, av.errorf(af, "%q: %w (mean is)", n.Value, ErrUnsupported)
				}
			case m.Name == "exact_match" && (k == "ignore_case" || k == "ignore_punctuation" || k == "ignore_numbers"):
				x := scalarValue(n)
				if !x.IsBool() {
					return nil, av.errorf(af, "want true or false")
				}
				switch k {
				case "ignore_case":
					m.Exact.IgnoreCase = x.AsBool()
				case "ignore_punctuation":
					m.Exact.IgnorePunctuation = x.AsBool()
				default:
					m.Exact.IgnoreNumbers = x.AsBool()
				}
			case m.Name == "exact_match" && k == "regexes_to_ignore":
				pats, err := stringList(av, af)
				if err != nil {
					return nil, err
				}
				res, err := match.CompileRegexes(pats)
				if err != nil {
					return nil, av.wrap(af, err)
				}
				m.Exact.RegexesToIgnore = res
			case (m.Name == "json_fields" || m.Name == "json_exact") && k == "fields":
				fields, err := stringList(av, af)
				if err != nil {
					return nil, err
				}
				m.Fields = fields
			default:
				return nil, av.errorf(af, "unknown option of %s: %w", m.Name, ErrUnsupported)
			}
		}
		if (m.Name == "label_accuracy" || m.Name == "macro_f1") && !c.DocToChoice.set {
			return nil, ev.errorf(field+".metric", "%s needs doc_to_choice: the label set", m.Name)
		}
		out = append(out, m)
	}
	return out, nil
}
