package taskfile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/runtime"
)

// Scoring modes of multiple_choice tasks (see Task.WithMode).
const (
	ModeGen    = "gen"
	ModeLoglik = "loglik"
)

// lmevalMaxGenToks is lm-eval's default max_gen_toks.
const lmevalMaxGenToks = 256

// Task is a task file as an evals.Task. It is immutable and safe for
// concurrent use.
type Task struct {
	cfg  *Config
	mode string // multiple_choice only: ModeLoglik (default) or ModeGen
}

// ChoiceTask is a multiple_choice task file: a Task that also scores by
// log-likelihood and can switch modes. Parse returns it in gen mode;
// DefaultMode (loglik) is what a run uses unless --mode says otherwise.
type ChoiceTask struct {
	Task
}

var (
	_ evals.Task       = (*Task)(nil)
	_ evals.Aggregator = (*Task)(nil)
	_ evals.Task       = (*ChoiceTask)(nil)
	_ evals.LoglikTask = (*ChoiceTask)(nil)
	_ evals.Aggregator = (*ChoiceTask)(nil)
)

// Parse reads one task file (with its includes): a *Task for
// generate_until, a *ChoiceTask for multiple_choice. Problems are *Error
// values naming the file, line and key; lm-eval features pocketeval does
// not support wrap ErrUnsupported.
func Parse(path string) (evals.Task, error) {
	return parse(path, jinja.DefaultLimits)
}

// parse is Parse with the templates rendering under lim.
func parse(path string, lim jinja.Limits) (evals.Task, error) {
	raw, err := readYAML(path, map[string]bool{})
	if err != nil {
		return nil, err
	}
	cfg, err := decodeConfig(path, raw, lim)
	if err != nil {
		return nil, err
	}
	return taskOfConfig(cfg), nil
}

// taskOfConfig is the task a decoded file describes.
func taskOfConfig(cfg *Config) evals.Task {
	if isLoglikType(cfg.OutputType) {
		return &LoglikTask{Task{cfg: cfg, mode: ModeLoglik}}
	}
	if cfg.OutputType == MultipleChoice {
		// Like the built-in multiple-choice tasks, the value starts in gen
		// mode; DefaultMode tells the runner to switch it to loglik.
		return &ChoiceTask{Task{cfg: cfg, mode: ModeGen}}
	}
	return &Task{cfg: cfg}
}

// Config returns the decoded task file.
func (t *Task) Config() *Config { return t.cfg }

// DefaultMode is the scoring mode used when a run does not choose one:
// log-likelihood, lm-eval's meaning of multiple_choice.
func (t *ChoiceTask) DefaultMode() string { return ModeLoglik }

// Modes lists the scoring modes.
func (t *ChoiceTask) Modes() []string { return []string{ModeLoglik, ModeGen} }

// WithMode returns the task scored by log-likelihood over doc_to_choice
// ("loglik") or by generating an answer and extracting the chosen option
// ("gen").
func (t *ChoiceTask) WithMode(mode string) (evals.Task, error) {
	switch mode {
	case "", ModeLoglik:
		return &ChoiceTask{Task{cfg: t.cfg, mode: ModeLoglik}}, nil
	case ModeGen:
		return &ChoiceTask{Task{cfg: t.cfg, mode: ModeGen}}, nil
	}
	return nil, fmt.Errorf("task %s: unknown mode %q (want %q or %q)", t.cfg.Name, mode, ModeLoglik, ModeGen)
}

// Info describes the task.
func (t *Task) Info() evals.TaskInfo {
	c := t.cfg
	info := evals.TaskInfo{
		Name:          c.Name,
		Version:       "file-" + c.Version,
		DatasetFiles:  c.Data.files(),
		Source:        c.File,
		FewShot:       true,
		PrimaryMetric: "",
		Description:   fmt.Sprintf("task file %s (%s)", c.File, c.OutputType),
	}
	if c.OutputType == MultipleChoice {
		info.Version += "+" + t.mode
		info.Description += "; scoring mode " + t.mode
	}
	if d := c.Decision; d != nil && t.mode == ModeLoglik {
		info.Version += "+decision-" + d.Score
		if d.Score == Option {
			info.Version += "-" + d.LengthNorm
		}
		info.Description += fmt.Sprintf("; decisions scored by %s, threshold and temperature fitted on split %s", d.Score, d.CalibrationSplit)
	}
	info.Metrics = t.metricNames()
	info.PrimaryMetric = info.Metrics[0]
	if t.generates() {
		info.DefaultMaxTokens = lmevalMaxGenToks
		if c.Gen.MaxGenToks > 0 {
			info.DefaultMaxTokens = c.Gen.MaxGenToks
		}
	}
	return info
}

func (t *Task) generates() bool { return t.cfg.OutputType == GenerateUntil || t.mode == ModeGen }

// metricName is a metric's key in scores: lm-eval's "metric,filter" for
// named filter pipelines, the plain name for the default one.
func metricName(metric, filter string) string {
	if filter == defaultFilterName {
		return metric
	}
	return metric + "," + filter
}

// metricNames lists the per-sample and task-level metrics, primary first.
func (t *Task) metricNames() []string {
	c := t.cfg
	if c.OutputType == MultipleChoice && t.mode == ModeGen {
		return []string{"acc", "acc_strict", "extraction_failed"}
	}
	if c.Decision != nil {
		return slices.Clone(decisionMetrics)
	}
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	filters := c.Filters
	if c.OutputType == MultipleChoice {
		filters = []FilterSet{{Name: defaultFilterName}}
	}
	for _, f := range filters {
		for _, m := range c.Metrics {
			info, _ := metricOf(c.OutputType, m.Name)
			for _, n := range append(append([]string(nil), info.perSample...), info.aggregate...) {
				add(metricName(n, f.Name))
			}
		}
	}
	return out
}

// extra is the Dataset.Extra of task files.
type extra struct {
	ev       docs
	docs     []pyvalue.Value // evaluation documents, by sample index
	pool     []pyvalue.Value // few-shot documents
	shots    [][]int         // per evaluation document, indices into pool
	k        int             // examples per prompt
	choices  [][]pyvalue.Value
	gold     []pyvalue.Value // doc_to_target of each evaluation document
	contexts []string        // raw prompt (description + examples + question)
	system   []string        // description, for chat prompts
	user     []string        // examples + question, for chat prompts
	// nEval is the number of evaluated documents when a decision block's
	// calibration documents follow them in docs (0 otherwise).
	nEval int
}

// Load reads the evaluation split and the few-shot documents, renders
// every prompt, and draws the few-shot examples for every document in
// order with one random.Random(cfg.Seed) stream, exactly as lm-eval does
// (so a shard or a --limit run sees the same examples as a full run).
func (t *Task) Load(ctx context.Context, lc evals.LoadConfig) (*evals.Dataset, error) {
	c := t.cfg
	files := map[string]string{}
	evalSplit := c.Data.Test
	if evalSplit == "" {
		evalSplit = c.Data.Valid
	}
	if evalSplit == "" {
		return nil, &Error{File: c.File, Field: "test_split", Err: errors.New("neither test_split nor validation_split is set")}
	}
	paths := []string{lc.DatasetFile}
	if lc.DatasetFile == "" {
		var err error
		if paths, err = c.Data.resolve(evalSplit, lc.DataDir); err != nil {
			return nil, err
		}
	}
	ev, err := c.Data.readSplit(evalSplit, paths, files)
	if err != nil {
		return nil, err
	}
	if len(ev.docs) == 0 {
		return nil, fmt.Errorf("load %s: split %q has no documents", c.Name, evalSplit)
	}
	docFiles := func(i int) string { return ev.files[0] }
	nEval := 0
	if c.Decision != nil {
		n, calFiles, err := t.readCalibration(ev, lc.DataDir, files)
		if err != nil {
			return nil, err
		}
		nEval = n
		docFiles = func(i int) string {
			if i >= n {
				return calFiles[0]
			}
			return ev.files[0]
		}
	}
	x := &extra{docs: ev.docs, nEval: nEval, ev: docs{ctx: ctx, features: map[string]bool{}, hasChoice: c.DocToChoice.set}}
	for _, f := range ev.features {
		x.ev.features[f] = true
	}
	x.k = c.NumFewshot
	var warnings []string
	switch {
	case lc.NumFewshot < 0:
	case c.numFewshotSet && c.NumFewshot == 0 && lc.NumFewshot > 0:
		// lm-eval's simple_evaluate keeps a num_fewshot of 0 written in
		// the task file over --num_fewshot.
		warnings = append(warnings, fmt.Sprintf("%s sets num_fewshot: 0, which wins over a requested num_fewshot of %d (as in lm-eval)", c.File, lc.NumFewshot))
	default:
		x.k = lc.NumFewshot
	}
	x.shots = make([][]int, len(ev.docs))
	if x.k > 0 {
		if err := t.loadFewshot(x, ev, lc, files); err != nil {
			return nil, err
		}
	}
	d := &evals.Dataset{Files: files, Extra: x, Warnings: warnings}
	x.choices = make([][]pyvalue.Value, len(ev.docs))
	x.gold = make([]pyvalue.Value, len(ev.docs))
	x.contexts = make([]string, len(ev.docs))
	x.system = make([]string, len(ev.docs))
	x.user = make([]string, len(ev.docs))
	for i, doc := range ev.docs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s, err := t.buildSample(x, i, doc)
		if err != nil {
			return nil, &evals.DataError{Path: docFiles(i), Line: ev.lines[i], Err: fmt.Errorf("document %d: %w", i, err)}
		}
		d.Samples = append(d.Samples, s)
	}
	return d, nil
}

func (t *Task) loadFewshot(x *extra, ev *splitData, lc evals.LoadConfig, files map[string]string) error {
	c := t.cfg
	f := c.Fewshot
	pool := &fewshotPool{sampler: f.Sampler}
	split := f.Split
	switch {
	case split != "":
	case f.Samples != nil:
		pool.docs = f.Samples
	case c.Data.Train != "":
		split = c.Data.Train
	case c.Data.Valid != "":
		split = c.Data.Valid
	default:
		split = c.Data.Test
	}
	if pool.docs == nil {
		if split == ev.name {
			pool.docs = ev.docs
		} else {
			paths, err := c.Data.resolve(split, lc.DataDir)
			if err != nil {
				return fmt.Errorf("load %s: few-shot split %q: %w", c.Name, split, err)
			}
			fs, err := c.Data.readSplit(split, paths, files)
			if err != nil {
				return err
			}
			pool.docs = fs.docs
		}
	}
	if f.Indices != nil {
		picked := make([]pyvalue.Value, 0, len(f.Indices))
		for _, i := range f.Indices {
			if i < 0 || i >= len(pool.docs) {
				return fmt.Errorf("load %s: fewshot_indices: %d outside %d documents", c.Name, i, len(pool.docs))
			}
			picked = append(picked, pool.docs[i])
		}
		pool.docs = picked
	}
	// lm-eval passes the evaluated document to the sampler (to leave it
	// out) when the few-shot split is the test split; with both unset
	// Python compares None == None, which is true.
	pool.excludeEval = f.Split == c.Data.Test
	shots, err := pool.draw(ev.docs, x.k, lc.Seed)
	if err != nil {
		return fmt.Errorf("load %s: %w", c.Name, err)
	}
	x.pool, x.shots = pool.docs, shots
	return nil
}

// buildSample renders one document's prompt parts, choices and target.
func (t *Task) buildSample(x *extra, i int, doc pyvalue.Value) (evals.Sample, error) {
	c := t.cfg
	s := evals.Sample{ID: x.sampleID(i)}
	q, err := x.ev.text(doc, c.DocToText)
	if err != nil {
		return s, fmt.Errorf("doc_to_text (%s): %w", c.DocToText.pos, err)
	}
	if !q.IsString() {
		return s, fmt.Errorf("doc_to_text gave %s: multiple-input tasks (one context per choice) are %w", pyvalue.Repr(q), ErrUnsupported)
	}
	var choices []pyvalue.Value
	if c.DocToChoice.set {
		if choices, err = x.ev.choices(doc, c.DocToChoice); err != nil {
			return s, fmt.Errorf("doc_to_choice (%s): %w", c.DocToChoice.pos, err)
		}
	}
	gold, err := x.ev.target(doc, c.DocToTarget)
	if err != nil {
		return s, fmt.Errorf("doc_to_target (%s): %w", c.DocToTarget.pos, err)
	}
	x.choices[i], x.gold[i] = choices, gold

	// Description (rendered with the evaluated document), examples, question.
	var desc string
	if c.Description != "" {
		if v, ok := doc.AsDict().Get(c.Description); ok {
			desc = pyvalue.Str(v)
		} else if desc, err = c.descTmpl.RenderContext(x.ev.context(), doc); err != nil {
			return s, fmt.Errorf("description: %w", err)
		}
	}
	var b strings.Builder
	f := c.Fewshot
	fsDocs := docs{ctx: x.ev.ctx, features: x.ev.features, hasChoice: c.DocToChoice.set}
	for _, j := range x.shots[i] {
		ex := x.pool[j]
		fq, err := fsDocs.text(ex, f.DocToText)
		if err != nil {
			return s, fmt.Errorf("few-shot example %d: doc_to_text (%s): %w", j, f.DocToText.pos, err)
		}
		var fc []pyvalue.Value
		if f.DocToChoice.set {
			if fc, err = fsDocs.choices(ex, f.DocToChoice); err != nil {
				return s, fmt.Errorf("few-shot example %d: doc_to_choice (%s): %w", j, f.DocToChoice.pos, err)
			}
		}
		fa, err := fsDocs.target(ex, f.DocToTarget)
		if err != nil {
			return s, fmt.Errorf("few-shot example %d: doc_to_target (%s): %w", j, f.DocToTarget.pos, err)
		}
		turn, err := qaTurn(fq, fc, fa, f.TargetDelimiter, f.FewshotDelimiter)
		if err != nil {
			return s, fmt.Errorf("few-shot example %d: %w", j, err)
		}
		b.WriteString(turn)
	}
	b.WriteString(q.AsString())
	x.system[i], x.user[i] = desc, b.String()
	x.contexts[i] = desc + b.String()

	s.Input = q.AsString()
	s.Choices = make([]string, len(choices))
	for k, ch := range choices {
		s.Choices[k] = pyvalue.Str(ch)
	}
	s.Target = targetText(gold, s.Choices)
	setGold(&s, gold, choices, c.OutputType)
	if c.resultCounts != nil {
		words, bytes, err := c.resultCounts(doc)
		if err != nil {
			return s, fmt.Errorf("process_results: %w", err)
		}
		if s.Meta == nil {
			s.Meta = map[string]any{}
		}
		s.Meta["words"], s.Meta["bytes"] = words, bytes
	}
	return s, nil
}

// targetText is the gold answer as text, for display.
func targetText(gold pyvalue.Value, choices []string) string {
	switch {
	case gold.IsInt() && choices != nil && gold.AsInt() >= 0 && int(gold.AsInt()) < len(choices):
		return choices[gold.AsInt()]
	case gold.IsList():
		parts := make([]string, 0, gold.AsList().Len())
		for _, g := range gold.AsList().Items {
			parts = append(parts, targetText(g, choices))
		}
		return strings.Join(parts, " | ")
	}
	return pyvalue.Str(gold)
}

func (t *Task) extraOf(d *evals.Dataset, s evals.Sample) (*extra, int, error) {
	x, _ := d.Extra.(*extra)
	if x == nil {
		return nil, 0, fmt.Errorf("task %s: dataset was not loaded by this task", t.cfg.Name)
	}
	i, ok := x.docIndex(s.ID)
	if !ok {
		return nil, 0, fmt.Errorf("task %s: unknown sample %q", t.cfg.Name, s.ID)
	}
	return x, i, nil
}

// Prompt renders a generation request: in completion mode (--raw) the
// context lm-eval builds; in chat mode the description as the system
// message and the examples and question as one user message (lm-eval's
// --apply_chat_template without --fewshot_as_multiturn).
func (t *Task) Prompt(d *evals.Dataset, s evals.Sample, pc evals.PromptConfig) (runtime.Request, error) {
	x, i, err := t.extraOf(d, s)
	if err != nil {
		return runtime.Request{}, err
	}
	req := runtime.Request{ID: s.ID, Task: t.cfg.Name, Gen: pc.Gen}
	g := t.cfg.Gen
	if len(req.Gen.Stop) == 0 {
		req.Gen.Stop = append([]string(nil), g.Until...)
	}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = t.Info().DefaultMaxTokens
	}
	if g.DoSample && req.Gen.Temperature == 0 {
		req.Gen.Temperature = g.Temperature
		if req.Gen.TopP == 0 {
			req.Gen.TopP = g.TopP
		}
	}
	if !pc.Chat {
		req.Prompt = x.contexts[i]
		return req, nil
	}
	if x.system[i] != "" {
		req.Messages = append(req.Messages, runtime.Message{Role: "system", Content: x.system[i]})
	}
	req.Messages = append(req.Messages, runtime.Message{Role: "user", Content: x.user[i]})
	return req, nil
}

// LoglikRequests returns one request per choice: the context and the
// target delimiter followed by the choice, as lm-eval's
// construct_requests does without a chat template.
func (t *ChoiceTask) LoglikRequests(d *evals.Dataset, s evals.Sample, pc evals.PromptConfig) ([]runtime.LoglikRequest, error) {
	x, i, err := t.extraOf(d, s)
	if err != nil {
		return nil, err
	}
	reqs := make([]runtime.LoglikRequest, len(x.choices[i]))
	for k, ch := range x.choices[i] {
		reqs[k] = runtime.LoglikRequest{Context: x.contexts[i], Continuation: t.cfg.TargetDelimiter + pyvalue.Str(ch)}
	}
	return reqs, nil
}
