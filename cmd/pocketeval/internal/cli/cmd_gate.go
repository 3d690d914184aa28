package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/gate"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
)

// GateOptions are the options of `pocketeval gate`.
type GateOptions struct {
	IO *IOStreams

	Baseline  string // --baseline
	Candidate string // --candidate
	Policy    string // --policy
	JUnit     string // --junit: write JUnit XML here
	Markdown  string // --markdown: append a Markdown summary here
	JSON      bool   // --json
	Quiet     bool   // --quiet: no progress line
	Seed      uint64 // --seed
	// Bench are bench --json (or energy --json) reports of the candidate
	// for the policy's budgets (--bench, repeatable); none means the
	// candidate directory's bench.json, if any.
	Bench []string
	// AllowUnlike gates runs that differ in what decides scores
	// (--allow-unlike): the gate then fails and says why; otherwise they
	// are refused (exit 2).
	AllowUnlike bool
	// NoVerify is --no-verify: trust the runs' stored scores; by default
	// both runs are re-scored (pocketeval verify) on DataDir, with the
	// task files TaskFiles (--tasks) and the known Tasks (a policy naming
	// a task neither these nor the runs know is an error).
	NoVerify  bool
	DataDir   string
	TaskFiles []string
	Tasks     []evals.Task
	// Key is --key: a key file; both runs' signatures must match it.
	Key string
}

// NewCmdGate applies a release policy.
func NewCmdGate(f *Factory, runF func(*GateOptions) error) *cobra.Command {
	opts := &GateOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "gate --baseline A --candidate B --policy gate.yaml",
		Short: "Decide whether a candidate model regresses against a baseline",
		Long: `Gate compares a candidate run with a baseline run under a policy (per-task
maximum drop in points, minimum score, whether a drop must be significant to
fail, a suite-average floor, and on-device budgets: speed, memory, package
size and energy from bench --json reports, see docs/budgets.md) and exits:

  0  pass
  1  regression (a task or the suite average fails the policy)
  2  usage or configuration error (bad flags, unreadable runs or policy,
     a policy naming an unknown task, samples that do not align, runs that
     differ in what decides scores unless --allow-unlike)

A drop beyond max_drop that no paired test can check fails (the gate fails
closed); with --allow-unlike, runs that differ in what decides scores fail
the gate, naming the settings.

--junit writes one JUnit test case per task; --markdown writes a table fit for
a CI step summary. See docs/ci.md for a GitHub Actions example.`,
		Example: `  $ pocketeval gate --baseline runs/release --candidate runs/pr --policy gate.yaml \
      --junit gate.xml --markdown "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Baseline == "" || opts.Candidate == "" || opts.Policy == "" {
				return FlagErrorf("--baseline, --candidate and --policy are required")
			}
			if opts.DataDir == "" {
				opts.DataDir = DefaultDataDir()
			}
			if f.Tasks != nil {
				opts.Tasks = f.Tasks()
			}
			if runF != nil {
				return runF(opts)
			}
			return gateRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Baseline, "baseline", "", "baseline result directory")
	fl.StringVar(&opts.Candidate, "candidate", "", "candidate result directory")
	fl.StringVar(&opts.Policy, "policy", "", "policy file (YAML)")
	fl.StringVar(&opts.JUnit, "junit", "", "write JUnit XML here")
	fl.StringVar(&opts.Markdown, "markdown", "", "append a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")
	fl.BoolVar(&opts.JSON, "json", false, "print the verdict as JSON")
	fl.BoolVar(&opts.Quiet, "quiet", false, "print no progress on stderr while the runs are re-scored")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	fl.BoolVar(&opts.AllowUnlike, "allow-unlike", false, "gate runs that differ in what decides scores (limit, max tokens, few-shot, template, thinking, seeds, task versions): the gate fails, naming the settings")
	fl.BoolVar(&opts.NoVerify, "no-verify", false, "do not re-score the runs' responses (by default a run whose stored scores are not what its responses score is refused, exit 2)")
	fl.StringVar(&opts.DataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory, for re-scoring the runs")
	fl.StringSliceVar(&opts.TaskFiles, "tasks", nil, "the task files or directories the runs ran, when they ran task files (for re-scoring)")
	fl.StringVar(&opts.Key, "key", "", "refuse (exit 2) runs not signed (run --sign-key) with the secret in this `FILE`")
	fl.StringArrayVar(&opts.Bench, "bench", nil, "bench --json or energy --json `FILE` of the candidate, for the policy's budgets (repeatable; default: the candidate's bench.json)")
	return cmd
}

func gateRun(ctx context.Context, opts *GateOptions) error {
	p, err := gate.ReadPolicy(opts.Policy, taskFileName)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if opts.Key != "" {
		key, err := results.ReadKey(opts.Key)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--key: %w", err)}
		}
		for _, dir := range []string{opts.Baseline, opts.Candidate} {
			if err := results.CheckSignature(dir, key); err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
		}
	}
	if !opts.NoVerify {
		if err := rescoreRuns(ctx, opts.IO, opts.Quiet || opts.JSON, opts.DataDir, opts.Tasks, opts.TaskFiles, opts.Baseline, opts.Candidate); err != nil {
			return err
		}
	}
	a, err := loadRun(opts.IO, opts.Baseline)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	b, err := loadRun(opts.IO, opts.Candidate)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if err := p.CheckTasks(knownTask(opts.Tasks, a, b)); err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	g, err := gate.Gate(a, b, p, gate.Options{Seed: opts.Seed, AllowUnlike: opts.AllowUnlike, Hints: gateHints})
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	var reports []rundir.BenchReport
	for _, path := range opts.Bench {
		r, err := rundir.ReadBenchReport(path)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
		reports = append(reports, r)
	}
	if len(reports) == 0 && b.Bench != nil {
		reports = append(reports, *b.Bench)
	}
	g.AddBudgets(gate.CheckBudgets(p, reports, b))
	if opts.JUnit != "" {
		x, err := g.JUnit()
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.JUnit, x, 0o644); err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
	}
	md := g.Markdown()
	if opts.Markdown != "" {
		if err := appendFile(opts.Markdown, md); err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, g); err != nil {
			return err
		}
	} else {
		fmt.Fprint(opts.IO.Out, md)
	}
	for _, w := range g.Warnings {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	if !g.Pass {
		for _, fl := range g.Failures {
			fmt.Fprintf(opts.IO.ErrOut, "regression: %s\n", fl)
		}
		return &ExitCodeError{Code: ExitError}
	}
	return nil
}

// appendFile appends text to path, creating it if needed.
func appendFile(path, text string) error {
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := fh.WriteString(text)
	if cerr := fh.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// knownTask reports whether a task is registered or in either run (a
// task file's task).
func knownTask(tasks []evals.Task, runs ...*rundir.Run) func(string) bool {
	known := map[string]bool{}
	for _, t := range tasks {
		known[t.Info().Name] = true
	}
	for _, r := range runs {
		for _, t := range r.Tasks() {
			known[t] = true
		}
	}
	return func(task string) bool { return known[task] }
}
