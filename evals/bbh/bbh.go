// Package bbh provides BIG-Bench Hard (Suzgun et al. 2022) as one
// evals.Task over its 27 sub-tasks (6,511 examples): 3-shot
// chain-of-thought with the official prompt files, scored by exact match of
// the answer after "the answer is", per sub-task and averaged.
//
// Prompts reproduce the official ones byte for byte: the prompt file with
// its canary header removed, then "\n\nQ: <input>\nA: Let's think step by
// step." Raw prompts are exactly that text; chat prompts split the three
// exemplars into user/assistant turns.
//
// Scoring reproduces the official evaluation (checked against the
// published code-davinci-002 outputs, whose per-task accuracies it matches
// on all 27 tasks): the response is cut at the first "\n\nQ:" (a model
// that keeps going starts a new question there), the text after the FIRST
// "the answer is " up to the end of its line is the answer, a final period
// is dropped, and it must equal the target exactly. exact_match_flexible
// additionally forgives case, markdown, "A" for "(A)", an option's text for
// its letter, a one-line answer-only response, and a missing "the answer
// is" on multiple-choice tasks when the response names an option last.
//
// The package intentionally offers no log-likelihood mode: BBH is defined
// by chain-of-thought generation.
package bbh

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/choice"
	"github.com/pocketeval/pocketeval/stats"
)

// Metric names.
const (
	MetricExact       = "exact_match"          // official extraction and comparison
	MetricFlexible    = "exact_match_flexible" // normalised comparison, fallbacks
	MetricExtractFail = "extraction_failed"    // no "the answer is" in the response
)

// ModeGen is the only scoring mode.
const ModeGen = "gen"

const (
	taskVersion      = "1+gen"
	defaultMaxTokens = 512
	numTasks         = 27
	source           = "https://github.com/suzgunmirac/BIG-Bench-Hard (bbh/*.json, cot-prompts/*.txt)"
)

// Task is the bbh task. It is immutable and safe for concurrent use.
type Task struct{}

var (
	_ evals.Task       = Task{}
	_ evals.Aggregator = Task{}
)

// New returns the bbh task.
func New() Task { return Task{} }

// Modes lists the scoring modes the task supports.
func (Task) Modes() []string { return []string{ModeGen} }

// WithMode accepts only "gen" (or ""): BBH has no log-likelihood variant.
func (t Task) WithMode(mode string) (evals.Task, error) {
	if mode == "" || mode == ModeGen {
		return t, nil
	}
	return nil, fmt.Errorf("task bbh: mode %q not supported; BBH is scored by chain-of-thought generation only (mode %q)", mode, ModeGen)
}

// Info describes the task.
func (Task) Info() evals.TaskInfo {
	return evals.TaskInfo{
		Name:             "bbh",
		Version:          taskVersion,
		DatasetFiles:     []string{"bbh/bbh", "bbh/cot-prompts"},
		Source:           source,
		PrimaryMetric:    MetricExact,
		Metrics:          []string{MetricExact, MetricFlexible, MetricExtractFail},
		Description:      "BIG-Bench Hard: 27 tasks, 6,511 examples, 3-shot chain-of-thought with the official prompts; exact match after \"the answer is\"; headline is the macro average over the 27 tasks.",
		DefaultMaxTokens: defaultMaxTokens,
		FewShot:          true, // 3 (default) or 0
		// The exact-match rate's unweighted mean over BBH's subtasks, as
		// published.
		Headline: MetricExact + "_macro",
	}
}

// prompt is one parsed CoT prompt file.
type prompt struct {
	text        string // the official few-shot text, canary removed
	description string
	shots       []shot

	turnsOnce sync.Once
	turns     []runtime.Message // the shots as chat turns (chatTurns)
}

// chatTurns are the shots as user and assistant turns, the description
// before the first question: made once, so that every sample's prompt
// shares their texts (a samples file's encoder escapes a text its
// records share once).
func (p *prompt) chatTurns() []runtime.Message {
	p.turnsOnce.Do(func() {
		for i, sh := range p.shots {
			content := "Q: " + sh.question
			if i == 0 {
				content = p.description + "\n\n" + content
			}
			p.turns = append(p.turns,
				runtime.Message{Role: "user", Content: content},
				runtime.Message{Role: "assistant", Content: sh.answer},
			)
		}
	})
	return p.turns
}

type shot struct{ question, answer string }

type extra struct {
	prompts map[string]*prompt // sub-task → prompt
}

// Load reads bbh/bbh/<task>.json and bbh/cot-prompts/<task>.txt for the
// 27 tasks under the data directory (or under cfg.DatasetFile, taken as
// the BBH root holding bbh/ and cot-prompts/).
func (Task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	root := cfg.DatasetFile
	if root == "" {
		root = filepath.Join(cfg.DataDir, "bbh")
	}
	if cfg.NumFewshot > 0 && cfg.NumFewshot != 3 {
		return nil, fmt.Errorf("load bbh: %w", &evals.FewShotError{Task: "bbh", Requested: cfg.NumFewshot, Allowed: []int{3, 0}, Why: "the official CoT prompts are 3-shot"})
	}
	dataDir := filepath.Join(root, "bbh")
	promptDir := filepath.Join(root, "cot-prompts")
	files, err := filepath.Glob(filepath.Join(dataDir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("load bbh: %w", err)
	}
	if len(files) == 0 {
		if _, err := evals.StatDataPath("bbh", dataDir, source); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("load bbh: no task files in %s (official source: %s)", dataDir, source)
	}
	sort.Strings(files)
	d := &evals.Dataset{Files: map[string]string{}}
	ex := &extra{prompts: map[string]*prompt{}}
	perFile := make([][]evals.Sample, 0, len(files))
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		samples, err := readTask(f, name, d)
		if err != nil {
			return nil, fmt.Errorf("load bbh: %w", err)
		}
		pf := filepath.Join(promptDir, name+".txt")
		raw, sum, err := evals.ReadDataFile("bbh", pf, source)
		if err != nil {
			return nil, err
		}
		d.Files[pf] = sum
		p, err := parsePrompt(string(raw))
		if err != nil {
			return nil, fmt.Errorf("load bbh: %s: %w", pf, err)
		}
		ex.prompts[name] = p
		perFile = append(perFile, samples)
	}
	d.Samples = slices.Concat(perFile...)
	if len(files) != numTasks {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d tasks, BBH has %d", dataDir, len(files), numTasks))
	}
	d.Extra = ex
	return d, nil
}

// jsonOnly makes readTask decode every file with encoding/json (tests,
// benchmarks).
var jsonOnly bool

func fastExamplesUnlessJSONOnly(raw []byte) (inputs, targets []string, ok bool) {
	if jsonOnly {
		return nil, nil, false
	}
	return fastExamples(raw)
}

func readTask(path, name string, d *evals.Dataset) ([]evals.Sample, error) {
	raw, sum, err := evals.ReadDataFile("bbh", path, source)
	if err != nil {
		return nil, err
	}
	d.Files[path] = sum
	if inputs, targets, ok := fastExamplesUnlessJSONOnly(raw); ok && len(inputs) > 0 {
		out := make([]evals.Sample, len(inputs))
		for i := range out {
			out[i] = evals.Sample{Input: inputs[i], Target: targets[i], Group: name}
		}
		setIDs(out, name)
		return out, nil
	}
	var file struct {
		Examples []struct {
			Input  *string `json:"input"`
			Target *string `json:"target"`
		} `json:"examples"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if len(file.Examples) == 0 {
		return nil, fmt.Errorf("%s: examples: empty", path)
	}
	out := make([]evals.Sample, 0, len(file.Examples))
	for i, e := range file.Examples {
		if e.Input == nil || e.Target == nil {
			return nil, fmt.Errorf("%s: examples[%d]: input or target missing", path, i)
		}
		out = append(out, evals.Sample{
			ID:     name + "/" + strconv.Itoa(i),
			Input:  *e.Input,
			Target: *e.Target,
			Group:  name,
		})
	}
	return out, nil
}

// canarySep ends the canary header of every prompt file; the official
// inputs start right after it.
const canarySep = "-----\n"

// parsePrompt strips the canary header and splits the few-shot text into
// the task description and its question/answer exemplars.
func parsePrompt(raw string) (*prompt, error) {
	raw = strings.ReplaceAll(raw, "\r\n", "\n")
	_, text, ok := strings.Cut(raw, canarySep)
	if !ok {
		return nil, fmt.Errorf("no %q line after the canary header", strings.TrimSpace(canarySep))
	}
	p := &prompt{text: text}
	parts := strings.Split(text, "\n\nQ: ")
	p.description = parts[0]
	for i, part := range parts[1:] {
		q, a, ok := strings.Cut(part, "\nA: ")
		if !ok {
			return nil, fmt.Errorf("exemplar %d has no \"\\nA: \" line", i+1)
		}
		p.shots = append(p.shots, shot{question: q, answer: strings.TrimRight(a, "\n")})
	}
	if len(p.shots) == 0 {
		return nil, fmt.Errorf("no exemplars")
	}
	return p, nil
}

const cotCue = "Let's think step by step."

// Prompt renders the official 3-shot CoT prompt (or 0-shot with
// --num-fewshot 0: the task description, the question and the CoT cue).
func (t Task) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	p, err := cotPrompt(d, s)
	if err != nil {
		return runtime.Request{}, err
	}
	zeroShot := cfg.NumFewshot == 0
	req := runtime.Request{ID: s.ID, Task: "bbh", Gen: cfg.Gen}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = defaultMaxTokens
	}
	if !cfg.Chat {
		text := p.text
		if zeroShot {
			text = p.description
		}
		req.Prompt = text + "\n\nQ: " + s.Input + "\nA: " + cotCue
		if len(req.Gen.Stop) == 0 {
			req.Gen.Stop = []string{"\n\nQ:"}
		}
		return req, nil
	}
	var shots []shot
	if !zeroShot {
		shots = p.shots
		req.Messages = make([]runtime.Message, 0, 2*len(shots)+1)
		req.Messages = append(req.Messages, p.chatTurns()...)
	}
	final := "Q: " + s.Input
	if len(shots) == 0 {
		final = p.description + "\n\n" + final + "\n\nAnswer step by step (start with \"" + cotCue + "\") and end with \"So the answer is <answer>.\""
	}
	req.Messages = append(req.Messages, runtime.Message{Role: "user", Content: final})
	return req, nil
}

// cotPrompt is the few-shot prompt of s's subtask, which a prompt of s
// needs.
func cotPrompt(d *evals.Dataset, s evals.Sample) (*prompt, error) {
	ex, _ := d.Extra.(*extra)
	if ex == nil || ex.prompts[s.Group] == nil {
		return nil, fmt.Errorf("prompt bbh %s: no CoT prompt loaded for task %q", s.ID, s.Group)
	}
	return ex.prompts[s.Group], nil
}

// CheckPrompt returns the error Prompt returns for s without rendering
// the prompt (runner.PromptChecker: a replay by task and id renders each
// prompt once, when its sample runs; TestCheckPromptIsPromptsError).
func (t Task) CheckPrompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) error {
	_, err := cotPrompt(d, s)
	return err
}

// ExtractAnswer is the official BBH answer extraction: cut the response at
// the first "\n\nQ:", take the text after the first "the answer is " up to
// the end of that line, trim it and drop one final period. ok is false when
// the response has no "the answer is ".
func ExtractAnswer(response string) (answer string, ok bool) {
	response, _, _ = strings.Cut(response, "\n\nQ:")
	_, after, found := strings.Cut(response, "the answer is ")
	if !found {
		return "", false
	}
	after, _, _ = strings.Cut(after, "\n")
	after = strings.TrimSpace(after)
	after = strings.TrimSuffix(after, ".")
	return after, true
}

var (
	reAnswerIs   = lazyre.New(`(?i)the\s+(?:final\s+)?answer\s+is\s*:?\s*`)
	reOptionLine = lazyre.New(`(?m)^\(([A-R])\)\s*(.+?)\s*$`)
	reMCLetter   = lazyre.New(`^\(?([A-R])\)?$`)
	reLastOption = lazyre.New(`\(([A-R])\)`)
)

// extractFlexible is the lenient variant: case-insensitive "the answer
// is"; else, for multiple-choice targets, the last "(X)" of the response;
// else a one-line response taken whole (answer-only output).
func extractFlexible(response string, mc bool) (string, bool) {
	response, _, _ = strings.Cut(response, "\n\nQ:")
	// Every match of reAnswerIs holds "answer" in some case (its 's'
	// may be U+017F ſ under (?i)), and every match of reLastOption a
	// '(': a response without them spares the regular expressions.
	if mayAnswerIs(response) {
		if loc := reAnswerIs.FindStringIndex(response); loc != nil {
			after := response[loc[1]:]
			after, _, _ = strings.Cut(after, "\n")
			return after, true
		}
	}
	if mc && strings.IndexByte(response, '(') >= 0 {
		if m := reLastOption.FindAllStringSubmatch(response, -1); m != nil {
			return "(" + m[len(m)-1][1] + ")", true
		}
	}
	// An answer-only response ("False", "B") is its own answer.
	if r := strings.TrimSpace(response); r != "" && !strings.Contains(r, "\n") && len(r) <= maxBareAnswer {
		return r, true
	}
	return "", false
}

// mayAnswerIs reports whether reAnswerIs can match s.
func mayAnswerIs(s string) bool {
	return choice.ContainsFold(s, "answer") || strings.ContainsRune(s, 'ſ')
}

// maxBareAnswer bounds a one-line response taken whole as the answer; the
// longest BBH targets (word_sorting, dyck_languages) fit.
const maxBareAnswer = 400

// normalize folds the superficial differences exact_match_flexible
// forgives: surrounding space, markdown emphasis, quotes, a final period,
// case, and inner runs of white space.
func normalize(s string) string {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "*`\"'“”")
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ".")
	s = strings.Trim(s, "*`\"'“”")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// options parses the "(A) text" lines of a multiple-choice input.
func options(input string) map[string]string {
	out := map[string]string{}
	for _, m := range reOptionLine.FindAllStringSubmatch(input, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func flexibleMatch(answer string, s evals.Sample) bool {
	got, want := normalize(answer), normalize(s.Target)
	if got == want {
		return true
	}
	tm := reMCLetter.FindStringSubmatch(strings.TrimSpace(s.Target))
	if tm == nil || !strings.HasPrefix(strings.TrimSpace(s.Target), "(") {
		return false
	}
	letter := tm[1]
	// "A", "(A)", "(A) option text", or the option text itself.
	if g := strings.ToUpper(got); g == letter || g == "("+letter+")" || strings.HasPrefix(g, "("+letter+") ") {
		return true
	}
	if text, ok := options(s.Input)[letter]; ok && got == normalize(text) {
		return true
	}
	return false
}

// Score applies the official extraction and exact match, and the flexible
// variant.
func (Task) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	ans, ok := ExtractAnswer(out.Text)
	exact := ok && ans == s.Target
	mc := strings.HasPrefix(strings.TrimSpace(s.Target), "(")
	flexAns, flexOK := ans, ok
	if !exact {
		if a, found := extractFlexible(out.Text, mc); found {
			flexAns, flexOK = a, true
		}
	}
	flex := exact || (flexOK && flexibleMatch(flexAns, s))
	sc := evals.Score{
		Values: map[string]float64{
			MetricExact:       evals.Indicator(exact),
			MetricFlexible:    evals.Indicator(flex),
			MetricExtractFail: evals.Indicator(!ok),
		},
		Extracted:        ans,
		ExtractionFailed: !ok,
	}
	if flexAns != ans {
		sc.Details = map[string]any{"flexible_extracted": strings.TrimSpace(flexAns)}
	}
	return sc, nil
}

// Aggregate reports per-task accuracy and the BBH headline: the macro
// average over tasks (the paper's "All tasks (avg)"), plus the micro
// average over examples.
func (Task) Aggregate(results []evals.SampleResult) evals.Aggregates {
	var tasks evals.Groups
	for _, r := range results {
		tasks.Add(r.Sample.Group, r.Score.Values)
	}
	total := len(results)
	agg := evals.Aggregates{Metrics: map[string]float64{}, Breakdown: tasks.Breakdown(nil)}
	names := tasks.Names()
	for _, m := range []string{MetricExact, MetricFlexible} {
		var sum float64
		for _, n := range names {
			sum += tasks.Get(n).Sum[m]
		}
		if len(names) > 0 {
			agg.Metrics[m+"_macro"] = tasks.Macro(names, m)
			means, ns := make([]float64, len(names)), make([]int, len(names))
			for i, n := range names {
				means[i], ns[i] = tasks.Get(n).Mean(m), tasks.Get(n).N
			}
			if agg.Stderr == nil {
				agg.Stderr = map[string]float64{}
			}
			agg.Stderr[m+"_macro"] = stats.MacroStderr(means, ns)
		}
		if total > 0 {
			agg.Metrics[m+"_micro"] = sum / float64(total)
		}
	}
	agg.Notes = []string{
		"scoring mode: gen (3-shot chain-of-thought, official prompts; answer after the first \"the answer is\" before any \"\\n\\nQ:\")",
		fmt.Sprintf("headline: exact_match_macro = %.4f, the unweighted mean over %d tasks as in the BBH paper; exact_match_micro = %.4f weights the %d examples (tasks have 146-250)",
			agg.Metrics[MetricExact+"_macro"], len(names), agg.Metrics[MetricExact+"_micro"], total),
	}
	if len(names) != numTasks {
		agg.Notes = append(agg.Notes, fmt.Sprintf("only %d of the %d BBH tasks were evaluated; the macro average is not comparable to published numbers", len(names), numTasks))
	}
	return agg
}
