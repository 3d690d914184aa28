package math

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

const (
	math500File   = "math500/test.jsonl"
	math500Source = "https://huggingface.co/datasets/HuggingFaceH4/MATH-500 (openai/prm800k math_splits/test.jsonl)"
)

// MATH500 is the 500-problem MATH subset of "Let's Verify Step by Step".
// Sample IDs are the dataset's unique_id ("test/precalculus/807.json");
// Group is the subject. Answers are judged with mathx.Equivalent.
//
// Chat prompts use the instruction common to Qwen and DeepSeek evaluations
// ("Please reason step by step, and put your final answer within
// \boxed{}."); completion prompts are "Problem:\n…\n\nSolution:" stopping
// at the next "Problem:". Strict accepts only a \boxed{} answer; flexible
// also takes "The final answer is $X$" (Minerva's format), the last inline
// math, or the last number.
type MATH500 struct{}

var (
	_ evals.Task       = MATH500{}
	_ evals.Aggregator = MATH500{}
)

// Info implements evals.Task.
func (MATH500) Info() evals.TaskInfo {
	return evals.TaskInfo{
		Name:             "math500",
		Version:          "2",
		DatasetFiles:     []string{math500File},
		Source:           math500Source,
		PrimaryMetric:    MetricFlexible,
		Metrics:          metricNames,
		Description:      "MATH-500 competition math, zero-shot chain of thought, \\boxed{} answers judged by LaTeX equivalence; per-subject and per-level breakdown",
		DefaultMaxTokens: 2048,
	}
}

type math500Record struct {
	Problem  string          `json:"problem"`
	Solution string          `json:"solution"`
	Answer   string          `json:"answer"`
	Subject  string          `json:"subject"`
	Level    json.RawMessage `json:"level"`
	UniqueID string          `json:"unique_id"`
}

// Load implements evals.Task.
func (t MATH500) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	if cfg.NumFewshot > 0 {
		return nil, &evals.FewShotError{Task: "math500", Requested: cfg.NumFewshot, Allowed: []int{0}, Why: "few-shot is not supported (zero-shot CoT only)"}
	}
	path := datasetPath(cfg, math500File)
	lines, sum, err := readLines("math500", path, math500Source)
	if err != nil {
		return nil, err
	}
	d := &evals.Dataset{Files: map[string]string{path: sum}}
	seen := map[string]int{}
	for i, line := range lines {
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var r math500Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, &DataError{Path: path, Line: i + 1, Field: "(record)", Err: err}
		}
		switch {
		case strings.TrimSpace(r.Problem) == "":
			return nil, &DataError{Path: path, Line: i + 1, Field: "problem", Err: errors.New("empty")}
		case strings.TrimSpace(r.Answer) == "":
			return nil, &DataError{Path: path, Line: i + 1, Field: "answer", Err: errors.New("empty")}
		}
		id := r.UniqueID
		if id == "" {
			id = strconv.Itoa(i)
		}
		if prev, dup := seen[id]; dup {
			return nil, &DataError{Path: path, Line: i + 1, Field: "unique_id", Err: fmt.Errorf("%q repeats line %d", id, prev)}
		}
		seen[id] = i + 1
		level := strings.Trim(string(r.Level), `"`)
		level = strings.TrimPrefix(level, "Level ")
		d.Samples = append(d.Samples, evals.Sample{
			ID:     id,
			Input:  r.Problem,
			Target: r.Answer,
			Group:  r.Subject,
			Meta:   map[string]any{"level": level},
		})
	}
	return d, ctx.Err()
}

const math500ChatSuffix = "\nPlease reason step by step, and put your final answer within \\boxed{}."

// Prompt implements evals.Task.
func (t MATH500) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	if cfg.NumFewshot > 0 {
		return runtime.Request{}, errors.New("math500: few-shot is not supported")
	}
	req := runtime.Request{ID: s.ID, Task: t.Info().Name}
	if cfg.Chat {
		req.Messages = []runtime.Message{{Role: "user", Content: s.Input + math500ChatSuffix}}
		req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens)
		return req, nil
	}
	req.Prompt = "Problem:\n" + s.Input + "\n\nSolution:"
	req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens, "Problem:", "</s>", "<|im_end|>")
	return req, nil
}

// Score implements evals.Task.
func (MATH500) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	return scoreLatex(s, out), ctx.Err()
}

// Aggregate implements evals.Aggregator: flexible and strict accuracy per
// subject and per difficulty level (as "level 1" … "level 5").
func (MATH500) Aggregate(results []evals.SampleResult) evals.Aggregates {
	var groups evals.Groups
	add := func(key string, sc evals.Score) {
		groups.Add(key, map[string]float64{MetricFlexible: sc.Values[MetricFlexible], MetricStrict: sc.Values[MetricStrict]})
	}
	for _, r := range results {
		if r.Sample.Group != "" {
			add(r.Sample.Group, r.Score)
		}
		if lv, ok := r.Sample.Meta["level"].(string); ok && lv != "" {
			add("level "+lv, r.Score)
		}
	}
	out := evals.Aggregates{Breakdown: groups.Breakdown(nil)}
	out.Notes = append(out.Notes, "breakdown by subject and by level (\"level N\"); headline numbers are means over all samples")
	return out
}
