package math

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/mathx"
)

const mgsmSource = "https://github.com/google-research/url-nlp (mgsm/mgsm_<lang>.tsv)"

// mgsmLang holds one language's native chain-of-thought wording: the
// question and answer labels and the answer cue of the MGSM paper's
// native-CoT exemplars, as lm-evaluation-harness's mgsm_native_cot configs
// use them, plus a one-line instruction (chat mode) asking for that cue.
type mgsmLang struct {
	Name     string
	Question string   // "问题："
	Answer   string   // "逐步解答："
	Cues     []string // strict answer cues, e.g. "答案是"
	// Instruction asks the model to end with the cue; "" for languages
	// where no checked translation exists (the labels alone are used).
	Instruction string
}

var mgsmLangs = map[string]mgsmLang{
	"bn": {Name: "Bengali", Question: "প্রশ্ন:", Answer: "ধাপে ধাপে উত্তর:", Cues: []string{"উত্তর হল", "The answer is"}},
	"de": {Name: "German", Question: "Frage:", Answer: "Schritt-für-Schritt-Antwort:", Cues: []string{"Die Antwort lautet"},
		Instruction: "Löse die Aufgabe Schritt für Schritt und beende deine Antwort mit „Die Antwort lautet N.“, wobei N die Zahl ist."},
	"en": {Name: "English", Question: "Question:", Answer: "Step-by-Step Answer:", Cues: []string{"The answer is"},
		Instruction: "Solve the problem step by step and end your response with \"The answer is N.\" where N is the number."},
	"es": {Name: "Spanish", Question: "Pregunta:", Answer: "Respuesta paso a paso:", Cues: []string{"La respuesta es"},
		Instruction: "Resuelve el problema paso a paso y termina tu respuesta con «La respuesta es N.», donde N es el número."},
	"fr": {Name: "French", Question: "Question :", Answer: "Réponse étape par étape :", Cues: []string{"La réponse est"},
		Instruction: "Résous le problème étape par étape et termine ta réponse par « La réponse est N. », où N est le nombre."},
	"ja": {Name: "Japanese", Question: "問題：", Answer: "ステップごとの答え：", Cues: []string{"答えは"},
		Instruction: "段階的に解き、最後に「答えはNです。」（Nは数値）と書いてください。"},
	"ru": {Name: "Russian", Question: "Задача:", Answer: "Пошаговое решение:", Cues: []string{"Ответ —", "Ответ:"},
		Instruction: "Решите задачу шаг за шагом и закончите ответ фразой «Ответ — N.», где N — число."},
	"sw": {Name: "Swahili", Question: "Swali:", Answer: "Jibu la Hatua kwa Hatua:", Cues: []string{"Jibu ni"}},
	"te": {Name: "Telugu", Question: "ప్రశ్న:", Answer: "దశలవారీగా సమాధానం:", Cues: []string{"సమాధానం"}},
	"th": {Name: "Thai", Question: "โจทย์:", Answer: "คำตอบทีละขั้นตอน:", Cues: []string{"คำตอบคือ"}},
	"zh": {Name: "Chinese", Question: "问题：", Answer: "逐步解答：", Cues: []string{"答案是"},
		Instruction: "请逐步推理，并在回答的最后写出“答案是 N。”，其中 N 是最终的数字答案。"},
}

// MGSMLanguages lists the MGSM language codes with a task, sorted.
func MGSMLanguages() []string {
	var out []string
	for l := range mgsmLangs {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// MGSM is one language of Multilingual Grade School Math (250 GSM8K
// problems translated by humans). Sample IDs are 0-based line indices of
// mgsm_<lang>.tsv (question<TAB>answer, no header).
//
// Prompts are native chain of thought: "<Question label> question\n<Step-
// by-step label>" in the language itself, and in chat mode an instruction
// in that language asking to end with the language's answer cue ("答案是
// N。"). Few-shot is not supported: the official exemplars live in a
// Python file upstream, not in the data.
type MGSM struct {
	Lang string // "zh", "en", … (a key of MGSMLanguages)
}

var _ evals.Task = MGSM{}

func (t MGSM) lang() mgsmLang { return mgsmLangs[t.Lang] }

func (t MGSM) file() string { return "mgsm/mgsm_" + t.Lang + ".tsv" }

// Info implements evals.Task.
func (t MGSM) Info() evals.TaskInfo {
	return evals.TaskInfo{
		Name:             "mgsm_" + t.Lang,
		Version:          "2",
		DatasetFiles:     []string{t.file()},
		Source:           mgsmSource,
		PrimaryMetric:    MetricFlexible,
		Metrics:          metricNames,
		Description:      fmt.Sprintf("MGSM %s, zero-shot native chain of thought; strict and flexible exact match", t.lang().Name),
		DefaultMaxTokens: 768,
	}
}

func (t MGSM) extractor() *mathx.NumericExtractor {
	return mgsmExtractors()[t.Lang]
}

// mgsmExtractors are built on first use.
var mgsmExtractors = sync.OnceValue(func() map[string]*mathx.NumericExtractor {
	m := map[string]*mathx.NumericExtractor{}
	for code, l := range mgsmLangs {
		m[code] = mathx.NewNumericExtractor(l.Cues...)
	}
	return m
})

// Load implements evals.Task.
func (t MGSM) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	if _, ok := mgsmLangs[t.Lang]; !ok {
		return nil, fmt.Errorf("mgsm: unknown language %q (known: %s)", t.Lang, strings.Join(MGSMLanguages(), ", "))
	}
	if cfg.NumFewshot > 0 {
		return nil, &evals.FewShotError{Task: t.Info().Name, Requested: cfg.NumFewshot, Allowed: []int{0}, Why: "few-shot is not supported for MGSM (zero-shot native CoT only)"}
	}
	path := datasetPath(cfg, t.file())
	lines, sum, err := readLines(t.Info().Name, path, mgsmSource)
	if err != nil {
		return nil, err
	}
	d := &evals.Dataset{Files: map[string]string{path: sum}}
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		q, a, ok := bytes.Cut(line, []byte("\t"))
		if !ok {
			return nil, &DataError{Path: path, Line: i + 1, Field: "answer", Err: errors.New("no tab-separated answer column")}
		}
		question := strings.TrimSpace(string(q))
		if question == "" {
			return nil, &DataError{Path: path, Line: i + 1, Field: "question", Err: errors.New("empty")}
		}
		n, ok := mathx.ParseNumber(string(a))
		if !ok {
			return nil, &DataError{Path: path, Line: i + 1, Field: "answer", Err: fmt.Errorf("%q is not a number", a)}
		}
		d.Samples = append(d.Samples, evals.Sample{ID: strconv.Itoa(i), Input: question, Target: n.String()})
	}
	return d, ctx.Err()
}

// Prompt implements evals.Task.
func (t MGSM) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	if cfg.NumFewshot > 0 {
		return runtime.Request{}, fmt.Errorf("%s: few-shot is not supported", t.Info().Name)
	}
	l := t.lang()
	sep := " "
	if strings.HasSuffix(l.Question, "：") {
		sep = "" // full-width colon: no space, as the MGSM zh/ja exemplars
	}
	text := l.Question + sep + s.Input + "\n" + l.Answer
	req := runtime.Request{ID: s.ID, Task: t.Info().Name}
	if cfg.Chat {
		content := text
		if l.Instruction != "" {
			content = l.Instruction + "\n\n" + text
		}
		req.Messages = []runtime.Message{{Role: "user", Content: content}}
		req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens)
		return req, nil
	}
	req.Prompt = text
	req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens, l.Question, "</s>", "<|im_end|>")
	return req, nil
}

// Score implements evals.Task.
func (t MGSM) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	ex := t.extractor()
	if ex == nil {
		return evals.Score{}, fmt.Errorf("mgsm: unknown language %q", t.Lang)
	}
	return scoreNumeric(ex, s, out), ctx.Err()
}
