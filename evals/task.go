// Package evals defines the Task contract that every benchmark adapter
// implements, and the values that flow through an evaluation:
//
//	dataset record → Sample (stable ID) → runtime.Request → runtime.Response
//	→ Output → Score (metric name → value) → metrics → task summary.
//
// Sample IDs are stable and documented: the dataset's own id where it has one
// (IFEval `key`, HumanEval/MBPP `task_id`), otherwise the 0-based record index
// in the dataset file, as `subject/index` for per-subject files.
package evals

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/selective"
)

// Task is one benchmark adapter. Implementations are stateless values safe
// for concurrent use: Prompt and Score are called from many goroutines.
type Task interface {
	// Info describes the task; it must not do I/O.
	Info() TaskInfo
	// Load reads the dataset and returns its samples in dataset order.
	// A missing file yields an error naming the expected path and the
	// official source; a malformed record an error naming file, line and
	// field.
	Load(ctx context.Context, cfg LoadConfig) (*Dataset, error)
	// Prompt renders the request for one sample.
	Prompt(d *Dataset, s Sample, cfg PromptConfig) (runtime.Request, error)
	// Score judges one response. Errors are for failures of the scorer
	// itself (e.g. the sandbox could not start), not for wrong answers.
	Score(ctx context.Context, s Sample, out Output) (Score, error)
}

// TaskInfo describes a task for `pocketeval tasks` and the manifest.
type TaskInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"` // bump when prompts or scoring change
	// DatasetFiles are paths relative to the data directory, e.g.
	// "gsm8k/test.jsonl". The first is the primary file.
	DatasetFiles []string `json:"dataset_files"`
	// Source says where the data officially comes from (shown when a file
	// is missing).
	Source        string `json:"source,omitempty"`
	PrimaryMetric string `json:"primary_metric"`
	// Metrics lists every metric the task reports: each one Score returns
	// (for every sample) and each one only Aggregate computes (IFEval's
	// instruction-level accuracies). evalstest.Check enforces it.
	Metrics     []string `json:"metrics"`
	Description string   `json:"description,omitempty"`
	// FewShot reports whether --num-fewshot applies.
	FewShot bool `json:"fewshot,omitempty"`
	// DefaultMaxTokens is the generation limit when the user sets none.
	DefaultMaxTokens int `json:"default_max_tokens,omitempty"`
	// Headline names the metric the benchmark's authors publish when it
	// is not the per-sample primary metric (C-Eval's macro average over
	// subjects, "acc_official_macro"): suites, gates, leaderboards and
	// `tasks` report it, and a run's summary names it whenever Aggregate
	// computed it. Paired comparisons keep using the primary metric, which
	// has per-sample values. It is the one place a task states its
	// headline.
	Headline string `json:"-"`
}

// LoadConfig says where and how to read the data.
type LoadConfig struct {
	DataDir string // root data directory (--data-dir / POCKETEVAL_DATA)
	// DatasetFile, when set, replaces the task's primary file (e.g. a
	// private IFEval-zh in the public schema).
	DatasetFile string
	NumFewshot  int   // -1 means the task's default
	Seed        int64 // for deterministic few-shot draws
	// SkipBadRecords lets a loader that can do without a malformed record
	// skip it and report it in Dataset.Warnings (file:line:field);
	// otherwise the first malformed record is the load error, a
	// *DataError. Known defects of an official file are skipped either
	// way, by the task's own rule.
	SkipBadRecords bool
}

// Dataset is what Load returns: the samples plus anything the task needs to
// render prompts (few-shot exemplars, BBH prompt files...).
type Dataset struct {
	Samples []Sample
	// Files are the files actually read, with their sha256, for the
	// manifest: path (as given) → hex digest.
	Files map[string]string
	// Extra is task-private state for Prompt (exemplars etc.).
	Extra any
	// Warnings are non-fatal problems (a malformed upstream record that was
	// skipped, with file:line); the run reports them.
	Warnings []string
}

// Sample is one dataset record.
type Sample struct {
	ID     string `json:"id"`
	Input  string `json:"input"`            // the question/prompt text
	Target string `json:"target,omitempty"` // reference answer as text
	// Choices for multiple-choice tasks.
	Choices []string `json:"choices,omitempty"`
	// Group is the subject / sub-task used for breakdowns ("" if none).
	Group string `json:"group,omitempty"`
	// Meta holds task-specific fields (IFEval kwargs, HumanEval test code…).
	Meta map[string]any `json:"meta,omitempty"`
}

// PromptConfig carries the run's generation settings into Prompt.
type PromptConfig struct {
	Gen        runtime.GenConfig
	NumFewshot int  // -1: task default
	Chat       bool // true unless the runtime or user asks for raw prompts
}

// Output is a runtime's response as the scorer sees it.
type Output struct {
	// Text is the response after post-processing (thinking removed when
	// --strip-thinking is on).
	Text string
	// Raw is the unmodified response.
	Raw          string
	FinishReason string
	// Prompt is the rendered prompt text (completion-mode tasks such as
	// HumanEval need it to rebuild the program).
	Prompt string
	// Loglik holds per-choice log-likelihood results in log-likelihood mode.
	Loglik []runtime.LoglikResult
	// ToolCalls are the function calls the runtime parsed out of the
	// answer (requests with tools).
	ToolCalls []runtime.ToolCall
	// CallText is the whole generated text ToolCalls were parsed out of
	// (runtime.Response.Raw): empty when there are none, or when a server
	// returned them without it. A scorer that decodes calls itself reads
	// it, so that a live run and a replay of its record decode the same
	// text.
	CallText string
}

// LogProbs are the summed log-probabilities of Loglik, in choice order.
func (o Output) LogProbs() []float64 {
	out := make([]float64, len(o.Loglik))
	for i, r := range o.Loglik {
		out[i] = r.LogProb
	}
	return out
}

// Score is a scorer's verdict on one sample.
type Score struct {
	// Values maps metric name → value (1/0 for accuracy-like metrics).
	Values map[string]float64 `json:"scores"`
	// Extracted is the answer the scorer took from the response.
	Extracted string `json:"extracted,omitempty"`
	// ExtractionFailed is set when no answer could be extracted.
	ExtractionFailed bool `json:"extraction_failed,omitempty"`
	// Details are scorer specifics kept for audit (IFEval per-instruction
	// verdicts, sandbox verdicts...).
	Details map[string]any `json:"details,omitempty"`
}

// Aggregator is implemented by tasks whose headline numbers are not plain
// means over samples (per-subject macro averages, category averages,
// pass@k). It receives every scored sample of the task in dataset order.
type Aggregator interface {
	Aggregate(results []SampleResult) Aggregates
}

// SampleResult pairs a sample with its score, for aggregation.
type SampleResult struct {
	Sample Sample
	Score  Score
	// Repeat is the 0-based repetition (n samples per task for pass@k).
	Repeat int
}

// Aggregates are task-level numbers beyond per-metric means.
type Aggregates struct {
	// Metrics override or add task-level metric values (e.g. "acc_macro",
	// "pass@10"); each becomes an entry in summary.json.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Breakdown: group name (subject, category, sub-task) → metric → value.
	Breakdown map[string]map[string]float64 `json:"breakdown,omitempty"`
	// Notes say how the numbers were computed ("macro over 57 subjects").
	Notes []string `json:"notes,omitempty"`
	// Units optionally give, for a metric in Metrics, the per-unit values
	// whose mean it is (per problem for pass@k, per instruction for
	// IFEval's instruction-level accuracy); the summary's standard error and
	// 95% interval are then computed over them.
	Units map[string][]float64 `json:"-"`
	// Stderr optionally gives a metric's standard error when it is not a
	// mean over units (a macro average over subjects); the summary's 95%
	// interval is then value ± 1.96·stderr.
	Stderr map[string]float64 `json:"-"`
	// Intervals optionally give a metric's 95% interval when it is
	// neither a mean over units nor has a standard error (a bootstrap
	// interval of a threshold's coverage).
	Intervals map[string][2]float64 `json:"-"`
	// N optionally gives the number of items a metric is over when it is
	// not every scored sample (a decision task's test split); the
	// summary's N is then that.
	N map[string]int `json:"-"`
	// Decision is the selective-prediction report of a decision task
	// (a task file with a decision block); nil for other tasks.
	Decision *selective.Report `json:"decision,omitempty"`
}

// Optioner is implemented by tasks with run options that change how they
// score (IFEval's langdetect seed, code tasks' verdict mode). The runner
// records TaskOptions in the manifest's task configuration, so that
// `pocketeval merge` rebuilds each task as its shards ran it.
type Optioner interface {
	// OptionKeys are the option keys the task accepts, sorted: a run's
	// options reach a task only through them (ApplyOptions).
	OptionKeys() []string
	// TaskOptions are the options that differ from the task's defaults;
	// nil when there are none, so a task run with its defaults records
	// nothing.
	TaskOptions() map[string]string
	// WithTaskOptions returns the task with opts (as TaskOptions gives
	// them) applied; an unknown key or a bad value is an error.
	WithTaskOptions(opts map[string]string) (Task, error)
}

// ApplyOptions is the one road by which run options reach tasks: each
// task that accepts some keys of opts (Optioner.OptionKeys) is rebuilt with
// them, over the options it already has; other tasks are returned as they
// are. A value the task refuses is an *OptionError naming the key.
func ApplyOptions(tasks []Task, opts map[string]string) ([]Task, error) {
	out := make([]Task, len(tasks))
	for i, t := range tasks {
		out[i] = t
		op, ok := t.(Optioner)
		if !ok {
			continue
		}
		merged, given := map[string]string{}, []string(nil)
		for k, v := range op.TaskOptions() {
			merged[k] = v
		}
		for _, k := range op.OptionKeys() {
			if v, ok := opts[k]; ok {
				merged[k] = v
				given = append(given, k)
			}
		}
		if len(given) == 0 {
			continue
		}
		nt, err := op.WithTaskOptions(merged)
		if err != nil {
			return nil, &OptionError{Task: t.Info().Name, Keys: given, Err: err}
		}
		out[i] = nt
	}
	return out, nil
}

// OptionError is a run option a task refused: Keys are the options it
// was given (in OptionKeys order), one of which it refused.
type OptionError struct {
	Task string
	Keys []string
	Err  error
}

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// ModeSetter is implemented by tasks with more than one scoring mode
// (multiple choice: "gen" and "loglik"); the returned task's Info carries
// the mode's metrics and version.
type ModeSetter interface {
	WithMode(mode string) (Task, error)
}

// DefaultModer is implemented by tasks whose scoring mode, when the run
// names none, is not gen (task files with output_type multiple_choice
// score by log-likelihood).
type DefaultModer interface {
	DefaultMode() string
}

// Chancer is implemented by tasks that know what random answers score:
// the run reports each task's random baseline and whether its score is
// significantly above it (stats.AboveChance).
type Chancer interface {
	// Chance is the probability that a uniformly random answer to s
	// scores 1 on metric (1/k for a k-choice question, 0 for an exact
	// answer nobody guesses); ok is false when metric has no such
	// baseline (a 0/1 metric is assumed).
	Chance(s Sample, metric string) (p float64, ok bool)
}

// LoglikTask is implemented by multiple-choice tasks that can be scored by
// the log-likelihood of each option.
type LoglikTask interface {
	// LoglikRequests returns one request per choice, in choice order.
	LoglikRequests(d *Dataset, s Sample, cfg PromptConfig) ([]runtime.LoglikRequest, error)
}

// RollingTask is implemented by log-likelihood tasks whose requests are
// whole texts to score in windows of the model's context (lm-eval's
// loglikelihood_rolling) when Rolling reports true: each request's
// Continuation is the text, its Context empty, and the runtime must be a
// runtime.RollingLoglikelihooder.
type RollingTask interface {
	Rolling() bool
}

// Releaser is implemented by tasks that hold memory only their scoring
// uses (IFEval's language-detection tables). The runner calls Release
// when a run has scored every sample of the task, so that a long run does
// not keep it; scoring after Release must still work (it takes the memory
// back).
type Releaser interface {
	Release()
}

// Setupper is implemented by tasks that need run-wide resources before
// scoring (a sandbox worker pool). The runner calls Setup once and uses the
// returned Task for the run, closing the Closer at the end.
type Setupper interface {
	Setup(ctx context.Context, env Env) (Task, io.Closer, error)
}

// Env carries run-wide settings to Setup.
type Env struct {
	// UnsafeNoSandbox allows running model-written code without isolation
	// (--unsafe-no-sandbox).
	UnsafeNoSandbox bool
	// Workers bounds parallel scoring work such as code execution; 0 means
	// the number of CPUs.
	Workers int
	// WorkersPerZygote is how many of the sandbox's workers one zygote
	// process may serve (sandbox.Config.WorkersPerZygote); 0 or 1: one
	// each. The isolated verdict mode sets it.
	WorkersPerZygote int
	// Record adds a fact to the run manifest's "environment" object
	// (e.g. the sandbox's active isolation layers). Never nil.
	Record func(key string, value any)
	// Warn reports a non-fatal problem to the user. Never nil.
	Warn func(format string, args ...any)
}

// Indicator is a pass/fail score as a number: 1 for true, 0 for false.
func Indicator(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// Conversational is implemented by tasks whose samples are conversations
// of several model calls (BFCL's multi-turn categories: the model's calls
// are executed and their results fed back until it stops calling). The
// runner calls Converse instead of generating once, except when the
// runtime replays saved results: then the one saved response is the whole
// conversation's result and goes to Score as it is. Score must judge
// Conversation.Output alone, so a record can be re-scored (resume, verify)
// without running the conversation again.
type Conversational interface {
	Converse(ctx context.Context, d *Dataset, s Sample, cfg PromptConfig, gen GenerateFunc) (Conversation, error)
}

// GenerateFunc generates one response of a conversation.
type GenerateFunc func(ctx context.Context, req runtime.Request) (runtime.Response, error)

// Conversation is what Converse produced.
type Conversation struct {
	// Output goes to Score; Output.Text is the record's response.
	Output Output
	// Messages are the whole conversation, the model's turns and the
	// tool results included (the record's messages).
	Messages []runtime.Message
	// Requests counts the model calls; PromptTokens, CompletionTokens
	// and Total sum over them.
	Requests                       int
	PromptTokens, CompletionTokens int
	Total                          time.Duration
}

// isTaskName reports what a task name may be: a lowercase identifier
// (letters, digits, "_" and "-", starting with a letter or digit, at most
// 128 bytes; ^[a-z0-9][a-z0-9_-]{0,127}$, checked without a regular
// expression, whose 127 repetitions cost about a millisecond to compile at
// every start). A name becomes a file name (samples/<task>.jsonl), so it
// never holds a "/", a "." or anything else a path could be made of.
func isTaskName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '_' || c == '-')) {
			return false
		}
	}
	return true
}

// CheckTaskName returns an error when name is not a lowercase identifier.
func CheckTaskName(name string) error {
	if !isTaskName(name) {
		return fmt.Errorf("%q is not a task name: a lowercase identifier of letters, digits, _ and - is expected", name)
	}
	return nil
}
