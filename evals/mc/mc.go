// Package mc provides the multiple-choice knowledge benchmarks — MMLU,
// C-Eval, CMMLU and ARC-Challenge — as evals.Task values with two scoring
// modes:
//
//   - gen (default): the model answers in text (0-shot or k-shot from the
//     dev split, chat or raw prompt); the option letter is extracted with
//     scorers/choice and reported strict and flexible, with the extraction
//     failure rate.
//   - loglik: each option is scored by its log-likelihood after the raw
//     prompt (evals.LoglikTask); Score picks the argmax and reports acc and
//     the length-normalised acc_norm, as lm-eval does.
//
// The mode is chosen per run with WithMode and recorded in the task
// version, in every sample's details and in the aggregate notes, because
// numbers from the two modes are not comparable.
//
// Aggregation follows each benchmark's own convention (see Aggregate): per
// subject accuracy, the official category averages, and both the micro
// (over questions) and macro (over subjects) headline numbers, with the
// official one named in the notes.
package mc

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/choice"
)

// Scoring modes accepted by WithMode.
const (
	ModeGen    = "gen"
	ModeLoglik = "loglik"
)

// Metric names. Gen mode reports MetricStrict, MetricFlexible and
// MetricExtractFail, and MetricOfficial for benchmarks whose official
// tool has a generative answer rule (C-Eval, CMMLU); loglik mode
// MetricAcc and MetricAccNorm.
const (
	MetricStrict      = "acc_strict"
	MetricFlexible    = "acc_flexible"
	MetricOfficial    = "acc_official"
	MetricExtractFail = "extraction_failed"
	MetricAcc         = "acc"
	MetricAccNorm     = "acc_norm"
)

const taskVersion = "1"

// Task is one multiple-choice benchmark in one scoring mode. The zero
// value is not usable; get tasks from MMLU, CEval, CMMLU and ARCChallenge.
// A Task is immutable and safe for concurrent use.
type Task struct {
	b    *benchmark
	mode string
}

var (
	_ evals.Task       = (*Task)(nil)
	_ evals.LoglikTask = (*Task)(nil)
	_ evals.Aggregator = (*Task)(nil)
)

// MMLU returns the `mmlu` task (57 subjects, 14,042 test questions, dev
// split for few-shot) in gen mode.
func MMLU() *Task { return &Task{b: mmluBench, mode: ModeGen} }

// CEval returns the `ceval` task (52 subjects, the 1,346-question val split
// that has answers, dev split for few-shot) in gen mode.
func CEval() *Task { return &Task{b: cevalBench, mode: ModeGen} }

// CMMLU returns the `cmmlu` task (67 subjects, 11,582 test questions, dev
// split for few-shot) in gen mode.
func CMMLU() *Task { return &Task{b: cmmluBench, mode: ModeGen} }

// ARCChallenge returns the `arc_challenge` task (1,172 test questions,
// zero-shot) in gen mode.
func ARCChallenge() *Task { return &Task{b: arcBench, mode: ModeGen} }

// Tasks returns every task of the package in gen mode.
func Tasks() []evals.Task {
	return []evals.Task{MMLU(), CEval(), CMMLU(), ARCChallenge()}
}

// WithMode returns the task scored in mode ("gen" or "loglik"; "" means
// gen). It is how a `--mode` flag reaches the task:
//
//	if m, ok := task.(evals.ModeSetter); ok {
//		task, err = m.WithMode(mode)
//	}
func (t *Task) WithMode(mode string) (evals.Task, error) {
	switch mode {
	case "", ModeGen:
		return &Task{b: t.b, mode: ModeGen}, nil
	case ModeLoglik:
		return &Task{b: t.b, mode: ModeLoglik}, nil
	}
	return nil, fmt.Errorf("task %s: unknown mode %q (want %q or %q)", t.b.name, mode, ModeGen, ModeLoglik)
}

// Modes lists the scoring modes the task supports.
func (t *Task) Modes() []string { return []string{ModeGen, ModeLoglik} }

// Mode reports the scoring mode ("gen" or "loglik").
func (t *Task) Mode() string { return t.mode }

// Info describes the task. The version carries the mode ("1+gen") so that
// results of the two modes are never mixed by resume or leaderboards.
func (t *Task) Info() evals.TaskInfo {
	info := evals.TaskInfo{
		Name:         t.b.name,
		Version:      taskVersion + "+" + t.mode,
		DatasetFiles: t.b.files,
		Source:       t.b.source,
		Description:  t.b.description + " Scoring mode: " + t.mode + ".",
		FewShot:      t.b.devDir != "",
	}
	if t.mode == ModeLoglik {
		info.PrimaryMetric = MetricAcc
		info.Metrics = []string{MetricAcc, MetricAccNorm}
	} else {
		info.PrimaryMetric = MetricFlexible
		info.Metrics = []string{MetricStrict, MetricFlexible, MetricExtractFail}
		if t.b.official != "" {
			// The official tool's rule is the headline; pocketeval's
			// strict and flexible numbers stay beside it.
			info.PrimaryMetric = MetricOfficial
			info.Metrics = append(info.Metrics, MetricOfficial)
		}
		info.DefaultMaxTokens = defaultMaxTokens
	}
	if t.b.agg.macro {
		// The primary metric's unweighted mean over subjects, where the
		// benchmark publishes that.
		info.Headline = info.PrimaryMetric + "_macro"
	}
	return info
}

// defaultMaxTokens leaves room for a short justification after the
// letter; reasoning models' thinking is stripped before scoring.
const defaultMaxTokens = 512

// Load reads the benchmark's evaluation split and, for few-shot prompts,
// its dev split.
func (t *Task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	k := t.b.shots(cfg.NumFewshot)
	if k > 0 && t.b.devDir == "" {
		return nil, fmt.Errorf("load %s: %w", t.b.name, &evals.FewShotError{Task: t.b.name, Requested: k, Allowed: []int{0}, Why: "the benchmark has no few-shot split"})
	}
	if k > maxShots {
		return nil, fmt.Errorf("load %s: %d-shot requested but each subject has %d dev examples", t.b.name, k, maxShots)
	}
	d, err := t.b.load(ctx, t.b, cfg)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", t.b.name, err)
	}
	return d, nil
}

// maxShots is the dev split size per subject of MMLU, C-Eval and CMMLU.
const maxShots = 5

// extra is the Dataset.Extra of this package: few-shot exemplars.
type extra struct {
	dev map[string][]evals.Sample // subject → dev samples in file order
	// zeroShot: the dataset has no dev split (subject files given with
	// --dataset-file); prompts are zero-shot unless shots are asked for.
	zeroShot bool
	// shots caches the rendered exemplars of a subject (shotKey → string
	// for raw prompts, []runtime.Message for chat prompts): every question
	// of a subject shares them, and the rendered strings are immutable.
	shots sync.Map
}

// shotKey names a rendering of a subject's first k exemplars.
type shotKey struct {
	format *format
	group  string
	k      int
	chat   bool
}

// Prompt renders the generation request for a sample: k exemplars from the
// subject's dev split (the first k, as the official scripts do), then the
// question. Chat prompts put each exemplar in its own user/assistant turn
// and ask for the answer as "Answer: X" / "答案：X"; raw prompts are the
// official completion format ending in the answer cue.
func (t *Task) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	shots, err := t.exemplars(d, s, cfg.NumFewshot)
	if err != nil {
		return runtime.Request{}, err
	}
	req := runtime.Request{ID: s.ID, Task: t.b.name, Gen: cfg.Gen}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = defaultMaxTokens
	}
	f := t.b.format
	ex, _ := d.Extra.(*extra)
	if !cfg.Chat {
		req.Prompt = f.raw(s, shotPrefix(ex, f, s.Group, shots))
		if len(req.Gen.Stop) == 0 {
			// A base model continues with the next question after a blank
			// line; the answer comes before it.
			req.Gen.Stop = []string{"\n\n"}
		}
		return req, nil
	}
	turns := shotTurns(ex, f, s.Group, shots)
	req.Messages = make([]runtime.Message, len(turns), len(turns)+1)
	copy(req.Messages, turns)
	// The last turn is written in one piece: [header] block "\n\n"
	// instruction.
	header := ""
	if len(shots) == 0 {
		header = f.header(s.Group)
	}
	var b strings.Builder
	b.Grow(len(header) + f.blockLen(s) + 2 + len(f.instruction))
	b.WriteString(header)
	f.writeBlock(&b, s)
	b.WriteString("\n\n")
	b.WriteString(f.instruction)
	req.Messages = append(req.Messages, runtime.Message{Role: "user", Content: b.String()})
	return req, nil
}

// CheckPrompt returns the error Prompt returns for s without rendering
// it: only the few-shot exemplars can be missing (runner.PromptChecker;
// TestCheckPromptIsPromptsError).
func (t *Task) CheckPrompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) error {
	_, err := t.exemplars(d, s, cfg.NumFewshot)
	return err
}

// shotPrefix is the raw prompt before the question: the header and the
// answered exemplars, rendered once per subject when ex caches them.
func shotPrefix(ex *extra, f *format, group string, shots []evals.Sample) string {
	key := shotKey{format: f, group: group, k: len(shots)}
	if ex != nil {
		if v, ok := ex.shots.Load(key); ok {
			return v.(string)
		}
	}
	var b strings.Builder
	b.WriteString(f.header(group))
	for _, s := range shots {
		f.writeBlock(&b, s)
		b.WriteString("\n" + f.answerCue + f.letterSep + s.Target + "\n\n")
	}
	prefix := b.String()
	if ex != nil {
		ex.shots.Store(key, prefix)
	}
	return prefix
}

// shotTurns are the exemplars as chat turns (a user question and the
// assistant's answer each, the header before the first), rendered once per
// subject when ex caches them. Callers copy the slice before appending.
func shotTurns(ex *extra, f *format, group string, shots []evals.Sample) []runtime.Message {
	if len(shots) == 0 {
		return nil
	}
	key := shotKey{format: f, group: group, k: len(shots), chat: true}
	if ex != nil {
		if v, ok := ex.shots.Load(key); ok {
			return v.([]runtime.Message)
		}
	}
	header := f.header(group)
	turns := make([]runtime.Message, 0, 2*len(shots))
	for i, s := range shots {
		content := f.block(s)
		if i == 0 {
			content = header + content
		}
		turns = append(turns,
			runtime.Message{Role: "user", Content: content},
			runtime.Message{Role: "assistant", Content: f.answerCue + f.letterSep + s.Target},
		)
	}
	if ex != nil {
		ex.shots.Store(key, turns)
	}
	return turns
}

// LoglikRequests returns one request per option, in option order: the raw
// prompt as context and the option as continuation — its letter for MMLU,
// C-Eval and CMMLU (the official and lm-eval setup), its text for
// ARC-Challenge (lm-eval's setup, which does not list the options).
func (t *Task) LoglikRequests(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) ([]runtime.LoglikRequest, error) {
	shots, err := t.exemplars(d, s, cfg.NumFewshot)
	if err != nil {
		return nil, err
	}
	f := t.b.format
	reqs := make([]runtime.LoglikRequest, len(s.Choices))
	if t.b.loglikText {
		ctx := f.loglikContext(s)
		for i, c := range s.Choices {
			reqs[i] = runtime.LoglikRequest{Context: ctx, Continuation: " " + c}
		}
		return reqs, nil
	}
	ex, _ := d.Extra.(*extra)
	ctx := f.raw(s, shotPrefix(ex, f, s.Group, shots))
	for i := range s.Choices {
		reqs[i] = runtime.LoglikRequest{Context: ctx, Continuation: f.letterSep + choice.Letter(i)}
	}
	return reqs, nil
}

func (t *Task) exemplars(d *evals.Dataset, s evals.Sample, numFewshot int) ([]evals.Sample, error) {
	k := t.b.shots(numFewshot)
	if k == 0 {
		return nil, nil
	}
	ex, _ := d.Extra.(*extra)
	if ex != nil && ex.zeroShot && numFewshot < 0 {
		return nil, nil
	}
	if ex == nil {
		return nil, fmt.Errorf("prompt %s %s: dataset has no few-shot exemplars (was it loaded by this task?)", t.b.name, s.ID)
	}
	dev := ex.dev[s.Group]
	if len(dev) < k {
		return nil, fmt.Errorf("prompt %s %s: %d-shot requested but subject %q has %d dev examples", t.b.name, s.ID, k, s.Group, len(dev))
	}
	return dev[:k], nil
}

// Score judges one response. In gen mode it extracts the option letter
// from out.Text; in loglik mode, or whenever out.Loglik is set, it picks
// the argmax of out.Loglik.
func (t *Task) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	want := choice.LetterIndex(s.Target)
	if want < 0 || want >= len(s.Choices) {
		return evals.Score{}, fmt.Errorf("score %s %s: target %q is not an option letter", t.b.name, s.ID, s.Target)
	}
	// Log-likelihood results decide even when the runner did not switch
	// the task with WithMode: they exist only in a loglik run.
	if t.mode == ModeLoglik || len(out.Loglik) > 0 {
		return t.scoreLoglik(s, out, want)
	}
	return t.scoreGen(s, out, want), nil
}

func (t *Task) scoreGen(s evals.Sample, out evals.Output, want int) evals.Score {
	// A raw prompt ends in the answer cue ("Answer:"), so the model's
	// " B" is an answer statement; put the cue back for strict matching.
	strictText := out.Text
	for _, cue := range []string{"Answer:", "答案：", "答案是："} {
		if strings.HasSuffix(out.Prompt, cue) {
			strictText = cue + out.Text
			break
		}
	}
	strict := choice.ExtractStrict(strictText, len(s.Choices))
	flex := strict
	switch {
	case flex.Found():
	case strictText == out.Text:
		// The flexible rules start with the strict one: not twice.
		flex = choice.ExtractAfterStrict(out.Text, len(s.Choices), s.Choices, strict)
	default:
		flex = choice.Extract(out.Text, s.Choices)
	}
	sc := evals.Score{
		Values: map[string]float64{
			MetricStrict:      evals.Indicator(strict.Index == want),
			MetricFlexible:    evals.Indicator(flex.Index == want),
			MetricExtractFail: evals.Indicator(!flex.Found()),
		},
		Extracted:        flex.Letter,
		ExtractionFailed: !flex.Found(),
		Details: map[string]any{
			"mode":   ModeGen,
			"strict": strict.Letter,
			"method": flex.Method,
		},
	}
	if t.b.official != "" {
		rule, _ := choice.RuleByName(t.b.official)
		off := rule.Extract(out.Text, s.Choices)
		sc.Values[MetricOfficial] = evals.Indicator(off.Found() && off.Index == want)
		sc.Details["official"] = off.Letter
		sc.Details["official_rule"] = rule.Name
	}
	return sc
}

func (t *Task) scoreLoglik(s evals.Sample, out evals.Output, want int) (evals.Score, error) {
	if len(out.Loglik) == 0 {
		return evals.Score{}, fmt.Errorf("score %s %s: loglik mode but the output has no log-likelihoods (does the runtime implement log-likelihood?)", t.b.name, s.ID)
	}
	lengths := s.Choices
	if !t.b.loglikText {
		lengths = make([]string, len(s.Choices))
		for i := range lengths {
			lengths[i] = choice.Letter(i)
		}
	}
	p, err := choice.PickLoglik(out.LogProbs(), lengths)
	if err != nil {
		return evals.Score{}, fmt.Errorf("score %s %s: %w", t.b.name, s.ID, err)
	}
	return evals.Score{
		Values: map[string]float64{
			MetricAcc:     evals.Indicator(p.Index == want),
			MetricAccNorm: evals.Indicator(p.NormIndex == want),
		},
		Extracted: choice.Letter(p.Index),
		Details: map[string]any{
			"mode":      ModeLoglik,
			"logprobs":  p.LogProbs,
			"pred_norm": choice.Letter(p.NormIndex),
		},
	}, nil
}
