package math

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/mathx"
)

const (
	gsm8kTestFile  = "gsm8k/test.jsonl"
	gsm8kTrainFile = "gsm8k/train.jsonl"
	gsm8kSource    = "https://github.com/openai/grade-school-math (grade_school_math/data/)"
)

// GSM8K is the grade-school math task: 1,319 test problems, chain of
// thought, numeric answer. Sample IDs are 0-based line indices of
// test.jsonl.
//
// Chat prompts (the default) follow lm-evaluation-harness's
// gsm8k_cot_llama: an instruction asking the answer to end with "The final
// answer is N"; with --num-fewshot k, k solved train problems precede it as
// earlier turns. Completion prompts (raw, no chat template) follow
// lm-eval's gsm8k task: "Question: …\nAnswer:" with k exemplars whose
// answers end in "#### N", stopping at the next "Question:".
type GSM8K struct{}

var _ evals.Task = GSM8K{}

var gsm8kExtractor = mathx.NewNumericExtractor("The final answer is", "The answer is")

// Info implements evals.Task.
func (GSM8K) Info() evals.TaskInfo {
	return evals.TaskInfo{
		Name:    "gsm8k",
		Version: "1",
		// train.jsonl is optional (few-shot only); Dataset.Files records
		// it when it is read.
		DatasetFiles:     []string{gsm8kTestFile},
		Source:           gsm8kSource,
		PrimaryMetric:    MetricFlexible,
		Metrics:          metricNames,
		Description:      "GSM8K grade-school math, zero-shot chain of thought (few-shot from train.jsonl with --num-fewshot); strict and flexible exact match",
		FewShot:          true,
		DefaultMaxTokens: 768,
	}
}

// gsm8kRecord is one line of test.jsonl / train.jsonl.
type gsm8kRecord struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// exemplar is a solved problem for few-shot prompts.
type exemplar struct {
	Question  string
	Reasoning string // the solution without its final "#### N" line
	RawAnswer string // the solution as in the file
	Final     string // canonical final number
}

// gsm8kExtra is GSM8K's Dataset.Extra.
type gsm8kExtra struct {
	train      []exemplar
	seed       int64
	numFewshot int
}

var hashAnswer = regexp.MustCompile(`(?s)^(.*?)\n?####\s*(.+?)\s*$`)

// parseGSM8KAnswer splits an answer field into reasoning and final number.
func parseGSM8KAnswer(answer string) (reasoning, final string, err error) {
	m := hashAnswer.FindStringSubmatch(answer)
	if m == nil {
		return "", "", errors.New(`no "#### <number>" line`)
	}
	n, ok := mathx.ParseNumber(m[2])
	if !ok {
		return "", "", fmt.Errorf("final answer %q is not a number", m[2])
	}
	return m[1], n.String(), nil
}

func loadGSM8KFile(path string) ([]gsm8kRecord, []exemplar, string, error) {
	lines, sum, err := readLines("gsm8k", path, gsm8kSource)
	if err != nil {
		return nil, nil, "", err
	}
	var recs []gsm8kRecord
	var ex []exemplar
	for i, line := range lines {
		if len(strings.TrimSpace(string(line))) == 0 {
			recs = append(recs, gsm8kRecord{}) // keep indices equal to line numbers
			ex = append(ex, exemplar{})
			continue
		}
		var r gsm8kRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, nil, "", &DataError{Path: path, Line: i + 1, Field: "(record)", Err: err}
		}
		if strings.TrimSpace(r.Question) == "" {
			return nil, nil, "", &DataError{Path: path, Line: i + 1, Field: "question", Err: errors.New("empty")}
		}
		reasoning, final, err := parseGSM8KAnswer(r.Answer)
		if err != nil {
			return nil, nil, "", &DataError{Path: path, Line: i + 1, Field: "answer", Err: err}
		}
		recs = append(recs, r)
		ex = append(ex, exemplar{Question: r.Question, Reasoning: reasoning, RawAnswer: r.Answer, Final: final})
	}
	return recs, ex, sum, nil
}

// Load implements evals.Task. With cfg.NumFewshot > 0 it also reads
// gsm8k/train.jsonl (next to the test file) for exemplars.
func (GSM8K) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	path := datasetPath(cfg, gsm8kTestFile)
	recs, ex, sum, err := loadGSM8KFile(path)
	if err != nil {
		return nil, err
	}
	d := &evals.Dataset{Files: map[string]string{path: sum}}
	for i, r := range recs {
		if r.Question == "" {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s:%d: empty line skipped", path, i+1))
			continue
		}
		d.Samples = append(d.Samples, evals.Sample{
			ID:     strconv.Itoa(i),
			Input:  r.Question,
			Target: ex[i].Final,
		})
	}
	extra := &gsm8kExtra{seed: cfg.Seed, numFewshot: cfg.NumFewshot}
	if cfg.NumFewshot > 0 {
		trainPath := filepath.Join(cfg.DataDir, gsm8kTrainFile)
		_, train, trainSum, err := loadGSM8KFile(trainPath)
		if err != nil {
			return nil, fmt.Errorf("gsm8k: --num-fewshot %d needs the train split (`pocketeval datasets download --optional gsm8k`): %w", cfg.NumFewshot, err)
		}
		for _, e := range train {
			if e.Question != "" {
				extra.train = append(extra.train, e)
			}
		}
		if len(extra.train) < cfg.NumFewshot {
			return nil, fmt.Errorf("gsm8k: --num-fewshot %d but %s has %d problems", cfg.NumFewshot, trainPath, len(extra.train))
		}
		d.Files[trainPath] = trainSum
	}
	d.Extra = extra
	return d, ctx.Err()
}

// gsm8kChatTemplate is lm-eval's gsm8k_cot_llama instruction.
const gsm8kChatTemplate = "Given the following problem, reason and give a final answer to the problem.\nProblem: %s\nYour response should end with \"The final answer is [answer]\" where [answer] is the response to the problem."

// Prompt implements evals.Task.
func (t GSM8K) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	extra, _ := d.Extra.(*gsm8kExtra)
	if extra == nil {
		extra = &gsm8kExtra{}
	}
	k := cfg.NumFewshot
	if k < 0 {
		k = max(extra.numFewshot, 0)
	}
	if k > len(extra.train) {
		return runtime.Request{}, fmt.Errorf("gsm8k: %d few-shot exemplars requested but %d loaded (load with --num-fewshot)", k, len(extra.train))
	}
	shots := pickExemplars(extra.seed, s.ID, len(extra.train), k, -1)
	req := runtime.Request{ID: s.ID, Task: t.Info().Name}
	if cfg.Chat {
		for _, i := range shots {
			e := extra.train[i]
			req.Messages = append(req.Messages,
				runtime.Message{Role: "user", Content: fmt.Sprintf(gsm8kChatTemplate, e.Question)},
				runtime.Message{Role: "assistant", Content: cleanReasoning(e.Reasoning) + "\nThe final answer is " + e.Final},
			)
		}
		req.Messages = append(req.Messages, runtime.Message{Role: "user", Content: fmt.Sprintf(gsm8kChatTemplate, s.Input)})
		req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens)
		return req, nil
	}
	var b strings.Builder
	for _, i := range shots {
		e := extra.train[i]
		fmt.Fprintf(&b, "Question: %s\nAnswer: %s\n\n", e.Question, e.RawAnswer)
	}
	fmt.Fprintf(&b, "Question: %s\nAnswer:", s.Input)
	req.Prompt = b.String()
	req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens, "Question:", "</s>", "<|im_end|>")
	return req, nil
}

// calcAnnotation matches GSM8K calculator annotations "<<48/2=24>>".
var calcAnnotation = regexp.MustCompile(`<<[^<>]*>>`)

// cleanReasoning removes calculator annotations from a reference solution.
func cleanReasoning(s string) string {
	return strings.TrimSpace(calcAnnotation.ReplaceAllString(s, ""))
}

// Score implements evals.Task.
func (GSM8K) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	return scoreNumeric(gsm8kExtractor, s, out), ctx.Err()
}
