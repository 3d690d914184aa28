package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/heapinit"
	"github.com/pocketeval/pocketeval/internal/texttab"
	"github.com/pocketeval/pocketeval/rundir"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/datasets"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/evals/code"
	"github.com/pocketeval/pocketeval/evals/ifeval"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/replay"
	"github.com/pocketeval/pocketeval/stats"
)

// RunOptions are the options of `pocketeval run`.
type RunOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
	// AllTasks lists the known tasks; Args (the command line) and Now are
	// recorded in the manifest.
	AllTasks func() []evals.Task
	Args     []string
	Now      func() time.Time

	Tasks []string
	Suite string
	Limit int
	// Samples is --samples: TASK:ID items or @FILE (samplesel.go).
	Samples         []string
	Out             string
	DataDir         string
	DatasetFile     string
	MaxTokens       int
	Temperature     float64
	TopP            float64
	Seed            int64
	NumFewshot      int
	StripThinking   bool
	Raw             bool
	Concurrency     int
	Force           bool
	SamplesPerTask  int
	Shard           string
	Mode            string
	UnsafeNoSandbox bool

	// AllowModifiedData runs on official dataset files that differ from
	// their pins, recording them in the manifest.
	AllowModifiedData bool
	modifiedData      map[string]string
	// SignKey is --sign-key: a key file; the finished run is signed with
	// it (results.Sign).
	SignKey string

	CodeTimeLimits code.TimeLimits
	// VerdictMode is the code tasks' verdict mode (code.VerdictOfficial
	// or code.VerdictIsolated).
	VerdictMode    string
	JSON           bool
	SkipBadRecords bool
	// KeepGoing runs a selection in which some samples cannot succeed
	// (prompts longer than the context, samples without a saved
	// prediction); they are recorded as failed.
	KeepGoing bool
	// DataDirSource says where DataDir came from, for error messages:
	// "--data-dir", "$POCKETEVAL_DATA" or "default".
	DataDirSource string
	// IFEvalSeed is langdetect's seed for IFEval's language checks.
	IFEvalSeed uint64
	// BFCLHandler names the BFCL model handler (or a model name of BFCL's
	// registry) whose decoder reads the answers of bfcl tasks.
	BFCLHandler string

	// groups are the task groups of the group files in Tasks (set by
	// selectTasks).
	groups []results.Group
	// DryRun plans the run instead (run_dryrun.go).
	DryRun bool
	// sampleIDs is Samples parsed (set in RunE).
	sampleIDs map[string][]string
}

// NewCmdRun evaluates a model on tasks.
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO, Runtime: RuntimeOptions{Drivers: f.runtimes(), Machine: f.Machine}, AllTasks: f.Tasks, Args: f.Args, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "run --runtime R --model M --tasks T[,T...] --out DIR",
		Short: "Evaluate a model on benchmark tasks",
		Long: `Run evaluates a model on one or more tasks and writes a result directory:
manifest.json (how the run was made), samples/<task>.jsonl (every prompt,
response and score) and summary.json (metrics with 95% intervals).

Running the same command again into the same --out resumes: finished samples
are kept, missing and failed ones are run. A different configuration is
refused; --force starts over.

Datasets are read from --data-dir (or $POCKETEVAL_DATA); nothing is downloaded
silently — a missing dataset fails with the command that fetches it.`,
		Example: `  # A GGUF model in process through llama.cpp, 50 GSM8K questions
  $ pocketeval run --runtime llamacpp --model stories260K.gguf --tasks gsm8k --limit 50 --out runs/s260k

  # Any OpenAI-compatible server (key read from $OPENAI_API_KEY)
  $ pocketeval run --runtime openai --base-url http://127.0.0.1:8080/v1 --model pocket --tasks ifeval --out runs/srv

  # Rerun one sample to debug it (ids as in samples/<task>.jsonl)
  $ pocketeval run --runtime llamacpp --model m.gguf --tasks gsm8k --samples gsm8k:17 --out runs/one

  # Score predictions made elsewhere
  $ pocketeval run --runtime replay --predictions preds.jsonl --tasks ifeval --out runs/replay

  # Split across 3 machines, then merge
  $ pocketeval run ... --shard 0/3 --out shard0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(opts.Tasks) == 0 && opts.Suite == "" {
				return FlagErrorf("--tasks or --suite is required (see `pocketeval tasks`)")
			}
			if opts.Out == "" && !opts.DryRun {
				return FlagErrorf("--out is required")
			}
			if err := opts.validateNumbers(); err != nil {
				return err
			}
			ids, err := parseSampleSelection(opts.Samples)
			if err != nil {
				return err
			}
			opts.sampleIDs = ids
			if !cmd.Flags().Changed("concurrency") && opts.Runtime.Caps().Instant && opts.SamplesPerTask == 1 {
				// Nothing to wait for but scoring: one request per core.
				// (Not with repeats: saved samples of one problem are
				// handed out in request order.)
				opts.Concurrency = goruntime.GOMAXPROCS(0)
			}
			if opts.Mode != "" && opts.Mode != "gen" && opts.Mode != "loglik" {
				return FlagErrorf("--mode must be gen or loglik")
			}
			if err := checkTemplateFlags(opts.Runtime); err != nil {
				return err
			}
			if _, err := ParseShard(opts.Shard); err != nil {
				return &FlagError{err: err}
			}
			switch {
			case cmd.Flags().Changed("data-dir"):
				opts.DataDirSource = "--data-dir"
			case opts.DataDir != "":
				opts.DataDirSource = "$POCKETEVAL_DATA"
			default:
				opts.DataDir, opts.DataDirSource = DefaultDataDir(), "default"
			}
			if runF != nil {
				return runF(opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	opts.Runtime.AddFlags(fl)
	fl.StringSliceVar(&opts.Tasks, "tasks", nil, "comma-separated task `NAMES` (pocketeval tasks lists them)")
	fl.StringVar(&opts.Suite, "suite", "", "run a named suite of tasks (e.g. pocket11)")
	fl.Var((*limitValue)(&opts.Limit), "limit", "evaluate only the first N samples of each task (0 = all)")
	fl.StringSliceVar(&opts.Samples, "samples", nil, "evaluate only these samples: TASK:ID[,TASK:ID...], or @FILE with one TASK:ID per line or a JSON object {\"task\": [\"id\", ...]}; ids are those of samples/<task>.jsonl")
	fl.StringVar(&opts.Out, "out", "", "result directory (resumed if it exists)")
	fl.StringVar(&opts.DataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory (default $POCKETEVAL_DATA, else the pocketeval cache)")
	fl.StringVar(&opts.DatasetFile, "dataset-file", "", "replace the task's dataset file (one task only), e.g. a private IFEval-zh in the public schema")
	fl.IntVar(&opts.MaxTokens, "max-tokens", 0, "maximum new tokens per response (0 = the task's default)")
	fl.Float64Var(&opts.Temperature, "temperature", 0, "sampling temperature (0 = greedy)")
	fl.Float64Var(&opts.TopP, "top-p", 0, "nucleus sampling (0 = off)")
	fl.Int64Var(&opts.Seed, "seed", 1234, "seed for sampling and few-shot selection")
	fl.IntVar(&opts.NumFewshot, "num-fewshot", -1, "few-shot examples for tasks that support them (-1 = task default)")
	fl.BoolVar(&opts.StripThinking, "strip-thinking", true, "remove <think>…</think> before scoring (recorded in the manifest)")
	fl.BoolVar(&opts.Raw, "raw", false, "send raw prompts instead of chat messages (completion mode)")
	fl.IntVar(&opts.Concurrency, "concurrency", 1, "requests in flight (also engine contexts for in-process runtimes); saved predictions (replay) default to one per core")
	fl.BoolVar(&opts.Force, "force", false, "discard an existing result directory and start over")
	fl.IntVar(&opts.SamplesPerTask, "samples-per-task", 1, "responses per sample (n for pass@k; use with --temperature > 0)")
	fl.StringVar(&opts.Shard, "shard", "", "run only shard i of N (i/N, 0-based), for splitting across machines")
	fl.StringVar(&opts.Mode, "mode", "", "multiple-choice scoring: gen (generate and extract) or loglik (option log-likelihood); default: each task's own (gen for built-in tasks, loglik for multiple_choice task files)")
	fl.BoolVar(&opts.UnsafeNoSandbox, "unsafe-no-sandbox", false, "run model-written code WITHOUT isolation (dangerous)")
	fl.StringVar(&opts.SignKey, "sign-key", "", "sign the finished run with the secret in this `FILE` (HMAC-SHA256 of the manifest, which holds the samples' digests; check with verify --key or gate --key)")
	fl.BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, "run on official dataset files that differ from the registry's pinned sha256 (recorded in the manifest)")
	addTimeLimitFlags(fl, &opts.CodeTimeLimits)
	fl.StringVar(&opts.VerdictMode, "verdict-mode", code.VerdictOfficial,
		"code tasks: official (program and tests in one process, as the official harnesses: reproduces published numbers) or isolated (the model's code alone in a second process, called through plain-data proxies: no verdict forging; recorded in the task version)")
	fl.BoolVar(&opts.JSON, "json", false, "print the run's summary as JSON (docs/json.md) instead of a table")
	fl.BoolVar(&opts.SkipBadRecords, "skip-bad-records", false, "skip malformed dataset records (each reported with file, line and field) instead of refusing the dataset")
	fl.BoolVar(&opts.KeepGoing, "keep-going", false, "run even when some selected samples cannot succeed (prompts longer than the context, samples without a saved prediction), recording them as failed")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "plan the run instead: per task samples, prompt tokens (with the model's tokenizer), cached prompt tokens, new tokens at most, and an ETA from a short calibration bench; writes nothing")
	fl.StringVar(&opts.BFCLHandler, "bfcl-handler", "", "bfcl tasks: decode answers with the BFCL model handler `NAME` (hermes, xlam, glm, ...; pocketeval tasks lists them) or the one BFCL's model registry names for this model (e.g. Salesforce/xLAM-2-1b-fc-r); recorded in the task version")
	fl.Uint64Var(&opts.IFEvalSeed, "ifeval-seed", 0, "langdetect seed for IFEval's language checks: the verdicts of the official scorer run with DetectorFactory.seed = N (recorded in the task version)")
	return cmd
}

// ParseShard parses "i/N".
func ParseShard(s string) (results.Shard, error) {
	if s == "" {
		return results.Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return results.Shard{}, fmt.Errorf("--shard %q: want i/N with 0 <= i < N", s)
	}
	return results.Shard{Index: i, Count: n}, nil
}

// DefaultDataDir is $POCKETEVAL_DATA, else $XDG_CACHE_HOME/pocketeval/datasets.
func DefaultDataDir() string { return datasets.DefaultDir() }

// selectTasks resolves --suite and --tasks (suite tasks first).
func selectTasks(opts *RunOptions) ([]evals.Task, error) {
	names := opts.Tasks
	if opts.Suite != "" {
		s, err := loadSuite(opts.Suite, opts.AllTasks())
		if err != nil {
			return nil, err
		}
		names = append(s.TaskNames(), names...)
	}
	sel, err := registry.Select(opts.AllTasks(), names)
	if err != nil {
		return nil, &FlagError{err: err}
	}
	opts.groups = sel.Groups
	return sel.Tasks, nil
}

// taskOptions are the run's task options (evals.Optioner keys), each from
// its flag, after checking the flags that take them.
func (opts *RunOptions) taskOptions() (map[string]string, error) {
	if err := opts.CodeTimeLimits.Validate(); err != nil {
		return nil, &FlagError{err: err}
	}
	if err := code.ValidateVerdictMode(opts.VerdictMode); err != nil {
		return nil, FlagErrorf("--verdict-mode: %v", err)
	}
	tl := opts.CodeTimeLimits
	to := map[string]string{
		ifeval.OptionLangdetectSeed: strconv.FormatUint(opts.IFEvalSeed, 10),
		code.OptionVerdictMode:      opts.VerdictMode,
		code.OptionTimeLimitMode:    tl.Mode,
		code.OptionTimeLimitFloor:   tl.Floor.String(),
		code.OptionTimeLimitFactor:  strconv.FormatFloat(tl.Factor, 'g', -1, 64),
	}
	if opts.BFCLHandler != "" {
		to[bfcl.OptionHandler] = opts.BFCLHandler
	}
	return to, nil
}

// optionFlags name the flag behind each task option, for errors.
var optionFlags = map[string]string{
	ifeval.OptionLangdetectSeed: "--ifeval-seed",
	code.OptionVerdictMode:      "--verdict-mode",
	code.OptionTimeLimitMode:    "--time-limit-mode",
	code.OptionTimeLimitFloor:   "--time-limit-floor",
	code.OptionTimeLimitFactor:  "--time-limit-factor",
	bfcl.OptionHandler:          "--bfcl-handler",
}

// withTaskOptions gives every task the run's options it accepts.
func (opts *RunOptions) withTaskOptions(tasks []evals.Task) ([]evals.Task, error) {
	to, err := opts.taskOptions()
	if err != nil {
		return nil, err
	}
	if opts.BFCLHandler != "" && !slices.ContainsFunc(tasks, func(t evals.Task) bool { return accepts(t, bfcl.OptionHandler) }) {
		return nil, FlagErrorf("--bfcl-handler applies to bfcl tasks only")
	}
	out, err := evals.ApplyOptions(tasks, to)
	var oe *evals.OptionError
	if errors.As(err, &oe) {
		flags := make([]string, len(oe.Keys))
		for i, k := range oe.Keys {
			flags[i] = optionFlags[k]
		}
		return nil, FlagErrorf("%s: %v", strings.Join(flags, ", "), oe.Err)
	}
	return out, err
}

// accepts reports whether task t takes the option key.
func accepts(t evals.Task, key string) bool {
	op, ok := t.(evals.Optioner)
	return ok && slices.Contains(op.OptionKeys(), key)
}

// validateNumbers refuses numeric flags no run can use (NaN fails every
// comparison, so it is refused too).
func (opts *RunOptions) validateNumbers() error {
	switch {
	case opts.Limit < 0:
		return FlagErrorf("--limit must be >= 0 (0 = all samples), got %d", opts.Limit)
	case opts.Concurrency < 1:
		return FlagErrorf("--concurrency must be >= 1, got %d", opts.Concurrency)
	case opts.SamplesPerTask < 1:
		return FlagErrorf("--samples-per-task must be >= 1, got %d", opts.SamplesPerTask)
	case opts.MaxTokens < 0:
		return FlagErrorf("--max-tokens must be >= 0 (0 = each task's default), got %d", opts.MaxTokens)
	case !(opts.Temperature >= 0):
		return FlagErrorf("--temperature must be >= 0 (0 = greedy), got %v", opts.Temperature)
	case !(opts.TopP >= 0 && opts.TopP <= 1):
		return FlagErrorf("--top-p must be in [0, 1] (0 = off), got %v", opts.TopP)
	case opts.NumFewshot < -1:
		return FlagErrorf("--num-fewshot must be >= 0, or -1 for each task's default, got %d", opts.NumFewshot)
	}
	return nil
}

// runRun checks everything it can before it loads a model: flags, the
// tasks, their data (every selected sample loaded), the runtime's flags;
// then it opens the runtime, whose preflight refuses requests that cannot
// succeed before the first one is sent.
func runRun(ctx context.Context, opts *RunOptions) error {
	heapinit.Prepare()
	tasks, err := selectTasks(opts)
	if err != nil {
		return err
	}
	if tasks, err = opts.withTaskOptions(tasks); err != nil {
		return err
	}
	if err := opts.checkDataPins(tasks); err != nil {
		return err
	}
	var signKey []byte
	if opts.SignKey != "" {
		if signKey, err = results.ReadKey(opts.SignKey); err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--sign-key: %w", err)}
		}
	}
	ro := opts.Runtime
	ro.Workers = opts.Concurrency
	if ro.Name != "" {
		if err := ro.Validate(); err != nil {
			return err
		}
	}
	progress := newProgress(opts.IO)
	o := opts.runnerOptions(tasks)
	o.Progress = progress
	o.Warn = func(format string, args ...any) { progress.Warn(fmt.Sprintf(format, args...)) }
	ro.Warn = progress.Warn
	prep, err := runner.Prepare(ctx, o)
	if err != nil {
		return opts.runError(ctx, nil, err)
	}
	defer prep.Close()
	if err := resolveModel(ctx, opts.IO, &ro); err != nil {
		return err
	}
	if !opts.Force && opts.Out != "" {
		// A resumed run renders date-dependent templates with its date.
		if ro.TemplateNow, err = pinnedTemplateDate(opts.Out); err != nil {
			return err
		}
	}
	if err := ro.Validate(); err != nil {
		return err
	}
	model, err := ro.DescribeModel()
	if err != nil {
		return err
	}
	baseline := runner.CurrentRSS()
	rt, err := OpenRuntime(ctx, ro)
	if err != nil {
		return err
	}
	defer rt.Close()
	for _, w := range ro.InputWarnings(rt) {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	if opts.Temperature > 0 && ro.Caps().UnseededSampling {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s's sampler has no seed: sampled runs are not reproducible\n", ro.Name)
	}
	if why := ro.RawPrompts(rt); why != "" && !opts.Raw {
		opts.Raw = true
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", why)
		if err := prep.UseRawPrompts(); err != nil {
			return err
		}
	}
	if opts.Raw && ro.Thinking != "" && ro.Thinking != "model-default" {
		fmt.Fprintf(opts.IO.ErrOut, "note: --thinking %s has no effect on raw prompts: no chat template renders them\n", ro.Thinking)
	}
	eng := runner.Engine{
		Runtime: rt, Name: ro.Name, Model: model, Settings: ro.OutputSettings(),
		InProcess: ro.Caps().InProcess, BaselineRSS: baseline, Nondeterminism: ro.Nondeterminism(),
	}
	if eng.Nondeterminism != "" && eng.InProcess {
		fmt.Fprintf(opts.IO.ErrOut, "note: not reproducible bit for bit: %s\n", eng.Nondeterminism)
	}
	if eng.InProcess {
		eng.Threads = max(ro.Threads, 1)
	}
	if opts.DryRun {
		return opts.dryRun(ctx, prep.With(eng))
	}
	res, err := prep.Run(ctx, eng)
	if err != nil {
		return opts.runError(ctx, res, err)
	}
	if signKey != nil {
		if err := results.Sign(opts.Out, signKey); err != nil {
			return err
		}
	}
	return opts.report(res)
}

// runnerOptions are the runner's options for this command, before the
// runtime is known.
func (opts *RunOptions) runnerOptions(tasks []evals.Task) runner.Options {
	shard, _ := ParseShard(opts.Shard)
	return runner.Options{
		Tasks: tasks, OutDir: opts.Out,
		DataDir: opts.DataDir, DatasetFile: opts.DatasetFile, Limit: opts.Limit, SampleIDs: opts.sampleIDs,
		Concurrency: opts.Concurrency,
		Groups:      opts.groups,
		Gen:         runtime.GenConfig{MaxTokens: opts.MaxTokens, Temperature: opts.Temperature, TopP: opts.TopP, Seed: opts.Seed},
		NumFewshot:  opts.NumFewshot, Chat: !opts.Raw, StripThinking: opts.StripThinking, Mode: opts.Mode,
		SamplesPerTask: opts.SamplesPerTask, Shard: shard, Force: opts.Force,
		UnsafeNoSandbox: opts.UnsafeNoSandbox, ModifiedData: opts.modifiedData, SkipBadRecords: opts.SkipBadRecords, Command: opts.Args,
		Build: ReadBuildInfo().Results(), Now: opts.Now, KeepGoing: opts.KeepGoing,
	}
}

// runError turns the runner's error into what the user sees. What no
// retry can fix is a usage error (exit 2) with the fix: a dataset that is
// not where pocketeval looks, a different configuration in --out, samples
// that cannot succeed. An interrupted run says how to resume.
func (opts *RunOptions) runError(ctx context.Context, res *runner.Result, err error) error {
	if res == nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err // interrupted while loading (a template's render, say): exit 130
	}
	var missing *evals.MissingDataError
	if errors.As(err, &missing) {
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("%w\n%s", err, missingDataHint(missing.Task, opts.DataDir, opts.DataDirSource))}
	}
	var mm *runner.ConfigMismatchError
	var de *evals.DataError
	var se *results.SampleError
	var le *results.LockedError
	var ne *results.NotRegularError
	var sel *runner.SelectionError
	var fe *runner.MismatchError
	var dge *results.DigestError
	if errors.As(err, &mm) || errors.As(err, &se) || errors.As(err, &le) || errors.As(err, &ne) || errors.As(err, &sel) || errors.As(err, &fe) || errors.As(err, &dge) {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if errors.As(err, &de) {
		if de.Skippable {
			err = fmt.Errorf("%w\n--skip-bad-records skips such records, reporting each", err)
		}
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	var pe *runner.PreflightError
	if errors.As(err, &pe) {
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("%w\n%s", err, preflightHint(pe, opts))}
	}
	if res != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		done := 0
		for _, ts := range res.Summary.Tasks {
			done += ts.Scored + ts.Errors
		}
		fmt.Fprintf(opts.IO.ErrOut, "interrupted: %d samples are saved in %s; run the same command again to resume\n", done, opts.Out)
		return &ExitCodeError{Code: ExitCancelled}
	}
	return err
}

// preflightHint says how to run what the preflight refused.
func preflightHint(pe *runner.PreflightError, opts *RunOptions) string {
	var fixes []string
	if errors.Is(pe, llamacpp.ErrPromptTooLong) {
		fixes = append(fixes, "prompts longer than the context: use a model with a longer context, or a larger --ctx-size (up to the model's training context), or fewer few-shot examples (--num-fewshot)")
	}
	if errors.Is(pe, replay.ErrNoPrediction) {
		fixes = append(fixes, "samples without a prediction: select the samples the file covers (--limit N, --tasks), or complete the predictions file")
	}
	var unusable []string
	for _, t := range pe.Tasks {
		if t.All() {
			unusable = append(unusable, t.Task)
		}
	}
	if len(unusable) > 0 {
		fixes = append(fixes, "leave out the tasks no sample of which can run: "+strings.Join(unusable, ", "))
	}
	fixes = append(fixes, "or run anyway with --keep-going: those samples are recorded as failed, and the task (and any suite average) stays incomplete")
	return "fix: " + strings.Join(fixes, ";\n     ")
}

// report prints a finished run: failed tasks first, each with its first
// error (stderr), then the summary table (or JSON) and the suite table.
// Failed samples make the command exit 1; the hint to run again appears
// only when some failed in transit (a retry may fix them).
func (opts *RunOptions) report(res *runner.Result) error {
	if res.Resumed {
		fmt.Fprintf(opts.IO.ErrOut, "resumed %s: %d samples reused, %d generated\n", opts.Out, res.Reused, res.Generated)
	}
	failed, retryable := 0, 0
	for _, name := range res.Summary.Order {
		ts := res.Summary.Tasks[name]
		if ts.Errors == 0 {
			continue
		}
		failed += ts.Errors
		retryable += ts.RetryableErrors
		fmt.Fprintf(opts.IO.ErrOut, "FAILED %s: %d of %d samples failed; first: %s\n", name, ts.Errors, ts.Samples, ts.FirstError)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, newRunJSON(opts.Out, res.Summary)); err != nil {
			return err
		}
	} else {
		PrintSummary(opts.IO.Out, res.Summary)
		if opts.Suite != "" {
			if err := printSuite(opts.IO.Out, opts.Suite, opts.Out); err != nil {
				return err
			}
		}
	}
	if failed == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d samples failed (see \"error\" in %s)", failed, filepath.Join(opts.Out, "samples"))
	switch {
	case retryable == failed:
		msg += "; they failed in transit (timeouts, connections): run the same command again to retry them"
	case retryable > 0:
		msg += fmt.Sprintf("; %d of them failed in transit (timeouts, connections): running the same command again retries those, the others fail the same way", retryable)
	}
	return &ExitCodeError{Code: ExitError, Err: errors.New(msg)}
}

// PrintSummary renders a summary as an aligned table: per task, the
// headline metric first (the number suites, gates and leaderboards report),
// then the other metrics.
func PrintSummary(w io.Writer, s *results.Summary) {
	tw := texttab.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tMETRIC\tVALUE\t95% CI\tN\tEXTRACT FAIL\tTRUNCATED\tDECODE TOK/S")
	for _, name := range s.Order {
		ts := s.Tasks[name]
		head := ts.Headline()
		m, ok := ts.Metrics[head]
		if st := ts.Status(); st == results.TaskFailed || st == results.TaskMissing || !ok {
			// Nothing was measured: no number, never 0.
			if st == results.TaskComplete || st == results.TaskIncomplete {
				st = "no " + head
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t0\t-\t-\t-\n", name, head, st)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", name, head,
			metricValue(head, m.Mean), interval(head, m), m.N, optPct(ts.ExtractionFailureRate),
			optPct(ts.TruncationRate), decodeTPS(ts.Timing))
		others := make([]string, 0, len(ts.Metrics))
		for k := range ts.Metrics {
			if k != head {
				others = append(others, k)
			}
		}
		unmet := unmetDecision(ts)
		for k := range unmet {
			if _, ok := ts.Metrics[k]; !ok && k != head {
				others = append(others, k)
			}
		}
		sort.Strings(others)
		for _, k := range others {
			m, ok := ts.Metrics[k]
			if !ok {
				fmt.Fprintf(tw, "\t%s\t%s\t-\t\t\t\t\n", k, unmet[k])
				continue
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%d\t\t\t\n", k, metricValue(k, m.Mean), interval(k, m), m.N)
		}
	}
	tw.Flush()
	printGroups(w, s)
	printChance(w, s)
	for _, name := range s.Order {
		for _, n := range s.Tasks[name].Notes {
			fmt.Fprintf(w, "%s note: %s\n", name, n)
		}
	}
	for _, name := range s.Order {
		if r := s.Tasks[name].ThinkingTruncatedRate; r != nil && *r > 0 {
			fmt.Fprintf(w, "%s: %s%% of responses were cut off by the token limit while still reasoning (no answer to score)\n", name, pct(*r))
		}
	}
	scored := 0
	for _, ts := range s.Tasks {
		scored += ts.Scored
	}
	switch {
	case scored == 0:
		fmt.Fprintln(w, "NOTHING SCORED: every selected sample failed or is missing; there are no numbers")
	case !s.Complete:
		fmt.Fprintln(w, "INCOMPLETE: some samples are missing or failed; these numbers are partial")
	}
}

// unmetDecision says, for a decision task whose calibration split has no
// threshold meeting the target error, what stands in the table for the
// metrics that then do not exist (no threshold; no risk over no accepted
// decision); nil for other tasks.
func unmetDecision(ts *results.TaskSummary) map[string]string {
	d := ts.Decision
	if d == nil || d.Operating.Found || d.CalibrationItems == 0 {
		return nil
	}
	return map[string]string{
		"threshold":     fmt.Sprintf("none meets %s%%", strconv.FormatFloat(100*d.Operating.Target, 'g', -1, 64)),
		"risk_at_error": "none accepted",
	}
}

// interval formats a metric's 95% interval, or "no CI" when it has none
// (a task-level aggregate without per-unit values or a standard error), as
// `suite` and `leaderboard` say it: no interval is shown that was not
// computed.
func interval(metric string, m stats.Summary) string {
	if !hasInterval(m) {
		return rundir.NoCI
	}
	return "[" + metricValue(metric, m.Lo) + ", " + metricValue(metric, m.Hi) + "]"
}

// hasInterval reports whether m carries a computed interval.
func hasInterval(m stats.Summary) bool { return !(m.Lo == m.Hi && m.Stderr == 0) }

func pct(x float64) string {
	if math.IsNaN(x) {
		return "?"
	}
	return strconv.FormatFloat(100*x, 'f', 2, 64)
}

// metricValue shows a metric: a proportion ×100, a perplexity or bits per
// byte as it is (results.IsRate).
func metricValue(metric string, x float64) string {
	if !results.IsRate(metric) && !math.IsNaN(x) {
		return strconv.FormatFloat(x, 'f', 4, 64)
	}
	return pct(x)
}

func optPct(x *float64) string {
	if x == nil {
		return "-"
	}
	return pct(*x) + "%"
}

func decodeTPS(t *results.Timing) string {
	if t == nil || t.DecodeTPSMedian == 0 {
		return "-"
	}
	return strconv.FormatFloat(t.DecodeTPSMedian, 'f', 1, 64)
}

// checkDataPins refuses official dataset files that differ from the
// registry's pinned sha256 (edited in place, another version) unless
// --allow-modified-data, which records them in the manifest.
func (opts *RunOptions) checkDataPins(tasks []evals.Task) error {
	var paths []string
	for _, t := range tasks {
		paths = append(paths, t.Info().DatasetFiles...)
	}
	mods, err := datasets.CheckPins(opts.DataDir, datasets.Registry(), paths)
	if err != nil || len(mods) == 0 {
		return err
	}
	var lines []string
	for _, m := range mods {
		lines = append(lines, fmt.Sprintf("  %s: sha256 %s, the registry pins %s", filepath.Join(opts.DataDir, m.Path), m.Got, m.Want))
	}
	if !opts.AllowModifiedData {
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("official dataset files differ from their pinned sha256 (edited, or another version):\n%s\n`pocketeval datasets fetch` restores them; --allow-modified-data runs on them anyway, recorded in the manifest; refused, nothing run", strings.Join(lines, "\n"))}
	}
	opts.modifiedData = map[string]string{}
	for _, m := range mods {
		opts.modifiedData[m.Path] = m.Got
	}
	fmt.Fprintf(opts.IO.ErrOut, "warning: running on modified official data (--allow-modified-data; recorded in the manifest):\n%s\n", strings.Join(lines, "\n"))
	return nil
}
