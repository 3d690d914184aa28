package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
)

// VerifyOptions are the options of `pocketeval verify`.
type VerifyOptions struct {
	IO *IOStreams

	Dirs    []string // result directories
	DataDir string   // --data-dir ("" = DefaultDataDir())
	JSON    bool     // --json
	Quiet   bool     // --quiet: no progress line
	// Tasks are the known tasks; TaskFiles are --tasks, the task files
	// the runs ran, when they ran task files.
	Tasks     []evals.Task
	TaskFiles []string
	// Key is --key: a key file; each run's signature must match it.
	Key string
}

// NewCmdVerify re-scores result directories.
func NewCmdVerify(f *Factory, runF func(*VerifyOptions) error) *cobra.Command {
	opts := &VerifyOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "verify DIR...",
		Short: "Re-score every stored response of result directories and report forged or stale scores",
		Long: `Verify re-scores every response stored in each result directory with the task of
the recorded version, on the recorded data (checked by sha256) and settings, and
reports every sample whose stored score, extracted answer, target or request
differs from what re-scoring gives. It also checks summary.json against the
samples and the samples files against the digests the manifest recorded.

Exit 0: every stored number is what its response scores; 1: some are not (each
listed with file, line and field); 2: a directory or its data cannot be read,
or a task's version, data or prompts are not the recorded ones.`,
		Example: `  $ pocketeval verify runs/example
  $ pocketeval verify --json runs/shard0 runs/shard1 | jq '.runs[].mismatches | length'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.DataDir == "" {
				opts.DataDir = DefaultDataDir()
			}
			opts.Dirs, opts.Tasks = args, f.Tasks()
			if runF != nil {
				return runF(opts)
			}
			return verifyRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.DataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the findings as JSON")
	cmd.Flags().BoolVar(&opts.Quiet, "quiet", false, "print no progress on stderr")
	cmd.Flags().StringVar(&opts.Key, "key", "", "check each run's signature (run --sign-key) with the secret in this `FILE`")
	cmd.Flags().StringSliceVar(&opts.TaskFiles, "tasks", nil, "the task files or directories the runs ran, when they ran task files")
	return cmd
}

// verifiedRun is one directory's findings.
type verifiedRun struct {
	*runner.VerifyReport
	// Problems are what the readers' checks refuse: a summary that
	// disagrees with the samples, a samples file changed after the run.
	Problems []string `json:"problems"`
	// Warnings say what the run records against its scores (official
	// data that differs from its pins); they do not fail verify.
	Warnings []string `json:"warnings,omitempty"`
}

func (r verifiedRun) ok() bool { return len(r.Mismatches) == 0 && len(r.Problems) == 0 }

func verifyRun(ctx context.Context, opts *VerifyOptions) error {
	var key []byte
	if opts.Key != "" {
		var err error
		if key, err = results.ReadKey(opts.Key); err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--key: %w", err)}
		}
	}
	var runs []verifiedRun
	for _, dir := range opts.Dirs {
		prog := progressFor(opts.IO, opts.Quiet || opts.JSON, "re-scoring "+dir, "responses")
		r, err := verifyDir(ctx, dir, opts.DataDir, opts.Tasks, opts.TaskFiles, prog)
		if err != nil {
			return err
		}
		if key != nil {
			if err := results.CheckSignature(dir, key); err != nil {
				r.Problems = append(r.Problems, err.Error())
			}
		}
		runs = append(runs, r)
	}
	bad := 0
	for _, r := range runs {
		if !r.ok() {
			bad++
		}
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, map[string]any{"runs": runs, "ok": bad == 0}); err != nil {
			return err
		}
	} else {
		for _, r := range runs {
			printVerified(opts.IO.Out, r)
		}
	}
	if bad > 0 {
		return &ExitCodeError{Code: ExitError}
	}
	return nil
}

// verifyDir re-scores dir and runs the readers' checks on it. Its errors
// are usage errors (exit 2): the directory or its data cannot be checked.
func verifyDir(ctx context.Context, dir, dataDir string, known []evals.Task, taskFiles []string, prog runner.Progress) (verifiedRun, error) {
	tasks := known
	if len(taskFiles) > 0 {
		files, err := registry.Lookup(known, taskFiles)
		if err != nil {
			return verifiedRun{}, &FlagError{err: err}
		}
		tasks = append(files, known...)
	}
	rep, err := runner.Verify(ctx, runner.VerifyOptions{Dir: dir, DataDir: dataDir, Lookup: lookupTask(tasks), Progress: prog})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return verifiedRun{}, err
		}
		return verifiedRun{}, &ExitCodeError{Code: ExitUsage, Err: err}
	}
	r := verifiedRun{VerifyReport: rep, Problems: []string{}}
	if run, err := rundir.Load(dir); err == nil {
		if w := modifiedDataWarning(dir, run.Manifest.Config.ModifiedData); w != "" {
			r.Warnings = append(r.Warnings, w)
		}
	} else {
		var ie *rundir.InconsistentError
		var de *results.DigestError
		switch {
		case errors.As(err, &de):
			// Verify has just re-scored the file: advise what is left.
			r.Problems = append(r.Problems, de.Fact()+"; the re-scoring above checked what it holds now: restore the file, or run the run's command again with --force to start over")
		case errors.As(err, &ie):
			r.Problems = append(r.Problems, err.Error())
		default:
			return verifiedRun{}, &ExitCodeError{Code: ExitUsage, Err: err}
		}
	}
	return r, nil
}

// lookupTask resolves a task name from a manifest among tasks.
func lookupTask(tasks []evals.Task) func(string) (evals.Task, error) {
	return func(name string) (evals.Task, error) {
		ts, err := registry.Lookup(tasks, []string{name})
		if err != nil {
			return nil, err
		}
		return ts[0], nil
	}
}

func printVerified(w io.Writer, r verifiedRun) {
	checked := 0
	for _, t := range r.Tasks {
		checked += t.Checked
	}
	verdict := "ok"
	if !r.ok() {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "%s %s: %d responses re-scored in %d tasks, %d records differ\n", verdict, r.Dir, checked, len(r.Tasks), len(r.Mismatches))
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "  %s\n", m)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	for _, p := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", p)
	}
}

// rescoreRuns re-scores the runs a command is about to trust (gate by
// default) and refuses any whose stored numbers are not what their
// responses score, with the list: exit 2, as an unreadable run. quiet
// turns its progress off.
func rescoreRuns(ctx context.Context, streams *IOStreams, quiet bool, dataDir string, known []evals.Task, taskFiles []string, dirs ...string) error {
	for _, dir := range dirs {
		r, err := verifyDir(ctx, dir, dataDir, known, taskFiles, progressFor(streams, quiet, "re-scoring "+dir, "responses"))
		if err != nil {
			return err
		}
		if !r.ok() {
			printVerified(streams.ErrOut, r)
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("%s: %d stored records are not what their responses score; refused (pocketeval verify %s lists them; --no-verify skips the check)", dir, len(r.Mismatches)+len(r.Problems), dir)}
		}
	}
	return nil
}
