package taskfile

import (
	"context"
	"fmt"
	"math"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/runtime"
)

// This file holds lm-eval's two log-likelihood output types:
//
//   - loglikelihood (lambada_openai): one request per document, context
//     the prompt lm-eval builds (description, few-shot examples,
//     doc_to_text), continuation doc_to_target exactly (ConfigurableTask.
//     construct_requests adds no target_delimiter); acc is whether the
//     continuation is the greedy choice at every token, perplexity
//     exp(−mean log-likelihood) over the documents;
//   - loglikelihood_rolling (wikitext): the whole doc_to_target scored
//     from the model's prefix token in windows of its context
//     (runtime.RollingWindows); word_perplexity and byte_perplexity are
//     exp(−Σ log-likelihood / Σ words or UTF-8 bytes) and bits_per_byte
//     −Σ log-likelihood / Σ bytes / ln 2, lm-eval's weighted_perplexity and
//     bits_per_byte aggregations, with words counted as
//     len(re.split(r"\s+", target)).

// LoglikTask is a task file of output_type loglikelihood or
// loglikelihood_rolling: it is scored by log-likelihood only.
type LoglikTask struct {
	Task
}

var (
	_ evals.LoglikTask  = (*LoglikTask)(nil)
	_ evals.RollingTask = (*LoglikTask)(nil)
	_ evals.Aggregator  = (*LoglikTask)(nil)
)

func isLoglikType(t string) bool { return t == Loglikelihood || t == LoglikelihoodRolling }

// loglikMetrics are the metrics of the two output types, by output type.
var loglikMetrics = map[string]map[string]metricInfo{
	Loglikelihood: {
		"acc":        {Loglikelihood, []string{"acc"}, nil, "lm-eval: the continuation is the greedy choice at every token"},
		"perplexity": {Loglikelihood, nil, []string{"perplexity"}, "lm-eval: exp(−mean log-likelihood of the continuations), lower is better"},
	},
	LoglikelihoodRolling: {
		"word_perplexity": {LoglikelihoodRolling, nil, []string{"word_perplexity"}, "lm-eval weighted_perplexity: exp(−Σ log-likelihood / Σ words)"},
		"byte_perplexity": {LoglikelihoodRolling, nil, []string{"byte_perplexity"}, "lm-eval weighted_perplexity: exp(−Σ log-likelihood / Σ UTF-8 bytes)"},
		"bits_per_byte":   {LoglikelihoodRolling, nil, []string{"bits_per_byte"}, "lm-eval: −Σ log-likelihood / Σ bytes / ln 2"},
	},
}

// loglikDefaultMetrics are lm-eval's metric lists when a file has none.
var loglikDefaultMetrics = map[string][]MetricSpec{
	Loglikelihood:        {{Name: "perplexity"}, {Name: "acc"}},
	LoglikelihoodRolling: {{Name: "word_perplexity"}, {Name: "byte_perplexity"}, {Name: "bits_per_byte"}},
}

// metricOf looks a metric up for an output type.
func metricOf(outputType, name string) (metricInfo, bool) {
	if m, ok := loglikMetrics[outputType]; ok {
		info, ok := m[name]
		return info, ok
	}
	info, ok := metricTable[name]
	return info, ok
}

// loglikAggregation reports whether aggregation agg is the one lm-eval
// registers for metric name of these output types (the only one allowed).
func loglikAggregation(outputType, name, agg string) bool {
	return agg == loglikAggregationOf(outputType, name)
}

// loglikAggregationOf is lm-eval's aggregation of a metric of these
// output types.
func loglikAggregationOf(outputType, name string) string {
	switch {
	case outputType == Loglikelihood && name == "perplexity":
		return "perplexity"
	case outputType == LoglikelihoodRolling && (name == "word_perplexity" || name == "byte_perplexity"):
		return "weighted_perplexity"
	case outputType == LoglikelihoodRolling && name == "bits_per_byte":
		return "bits_per_byte"
	}
	return "mean"
}

// DefaultMode is log-likelihood, the only mode.
func (t *LoglikTask) DefaultMode() string { return ModeLoglik }

// Modes lists the one mode.
func (t *LoglikTask) Modes() []string { return []string{ModeLoglik} }

// WithMode accepts only loglik.
func (t *LoglikTask) WithMode(mode string) (evals.Task, error) {
	if mode != "" && mode != ModeLoglik {
		return nil, fmt.Errorf("task %s: output_type %s is scored by log-likelihood only (no %q mode)", t.cfg.Name, t.cfg.OutputType, mode)
	}
	return t, nil
}

// Rolling reports whether the task scores whole texts in windows.
func (t *LoglikTask) Rolling() bool { return t.cfg.OutputType == LoglikelihoodRolling }

// Prompt refuses: these tasks generate nothing.
func (t *LoglikTask) Prompt(d *evals.Dataset, s evals.Sample, pc evals.PromptConfig) (runtime.Request, error) {
	return runtime.Request{}, fmt.Errorf("task %s: output_type %s is scored by log-likelihood, not by generating (loglik mode)", t.cfg.Name, t.cfg.OutputType)
}

// LoglikRequests returns lm-eval's request of the document: (context,
// doc_to_target) for loglikelihood; for loglikelihood_rolling the text
// doc_to_target as the continuation of an empty context, which the
// runner scores in windows (evals.RollingTask).
func (t *LoglikTask) LoglikRequests(d *evals.Dataset, s evals.Sample, pc evals.PromptConfig) ([]runtime.LoglikRequest, error) {
	x, i, err := t.extraOf(d, s)
	if err != nil {
		return nil, err
	}
	target := pyvalue.Str(x.gold[i])
	if t.Rolling() {
		return []runtime.LoglikRequest{{Continuation: target}}, nil
	}
	return []runtime.LoglikRequest{{Context: x.contexts[i], Continuation: target}}, nil
}

// Score records the document's log-likelihood (and, for rolling tasks,
// its word and byte counts) for Aggregate; acc is per document.
func (t *LoglikTask) Score(_ context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	c := t.cfg
	if len(out.Loglik) != 1 {
		return evals.Score{}, fmt.Errorf("score %s %s: want one log-likelihood, the output has %d", c.Name, s.ID, len(out.Loglik))
	}
	r := out.Loglik[0]
	if math.IsNaN(r.LogProb) || math.IsInf(r.LogProb, 0) {
		return evals.Score{}, fmt.Errorf("score %s %s: log-likelihood %v", c.Name, s.ID, r.LogProb)
	}
	sc := evals.Score{Values: map[string]float64{}, Details: map[string]any{"mode": ModeLoglik, "loglikelihood": r.LogProb, "tokens": r.Tokens}}
	if t.Rolling() {
		// lm-eval counts the target, unless a process_results
		// hook counts something else (wikitext: the page before
		// detokenization).
		text := s.Target
		sc.Details["words"], sc.Details["bytes"] = countWords(text), len(text)
		if w, ok := s.Meta["words"]; ok && c.resultCounts != nil {
			sc.Details["words"], sc.Details["bytes"] = w, s.Meta["bytes"]
		}
		return sc, nil
	}
	sc.Details["is_greedy"] = r.IsGreedy
	if hasMetric(c, "acc") {
		sc.Values["acc"] = evals.Indicator(r.IsGreedy)
	}
	return sc, nil
}

// countWords is lm-eval's count_words, len(re.split(r"\s+", doc)):
// the runs of whitespace plus one (empty pieces at either end count).
func countWords(doc string) int {
	n, in := 1, false
	for _, r := range doc {
		sp := isPySpace(r)
		if sp && !in {
			n++
		}
		in = sp
	}
	return n
}

// Aggregate computes the perplexities over the documents.
func (t *LoglikTask) Aggregate(results []evals.SampleResult) evals.Aggregates {
	c := t.cfg
	agg := evals.Aggregates{Metrics: map[string]float64{}}
	var ll, words, bytes float64
	n := 0
	for _, r := range results {
		ll += number(r.Score.Details["loglikelihood"])
		words += number(r.Score.Details["words"])
		bytes += number(r.Score.Details["bytes"])
		n++
	}
	if n == 0 {
		return agg
	}
	if hasMetric(c, "perplexity") {
		agg.Metrics["perplexity"] = math.Exp(-ll / float64(n))
		agg.Notes = append(agg.Notes, fmt.Sprintf("perplexity: exp(−mean log-likelihood) over %d continuations (lm-eval's perplexity aggregation)", n))
	}
	if words > 0 && hasMetric(c, "word_perplexity") {
		agg.Metrics["word_perplexity"] = math.Exp(-ll / words)
	}
	if bytes > 0 && hasMetric(c, "byte_perplexity") {
		agg.Metrics["byte_perplexity"] = math.Exp(-ll / bytes)
	}
	if bytes > 0 && hasMetric(c, "bits_per_byte") {
		agg.Metrics["bits_per_byte"] = -ll / bytes / math.Ln2
	}
	if t.Rolling() {
		agg.Notes = append(agg.Notes, fmt.Sprintf("loglikelihood_rolling over %d documents, %.0f words, %.0f bytes: word_perplexity = exp(−Σll/Σwords), byte_perplexity = exp(−Σll/Σbytes), bits_per_byte = −Σll/Σbytes/ln 2 (lm-eval)", n, words, bytes))
	}
	return agg
}
