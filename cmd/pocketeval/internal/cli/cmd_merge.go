package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
)

// MergeOptions are the options of `pocketeval merge`.
type MergeOptions struct {
	IO *IOStreams

	Dirs    []string // the shards' result directories
	Out     string   // --out
	DataDir string   // --data-dir ("" = DefaultDataDir())
	// Tasks are the known tasks; Args and Now are recorded in the manifest.
	Tasks []evals.Task
	// TaskFiles are --tasks: the task files or directories the shards
	// ran, when they ran task files.
	TaskFiles []string
	Args      []string
	Now       func() time.Time
	// NoRescore is --no-rescore: trust the shards' stored scores.
	NoRescore bool
}

// NewCmdMerge combines shard runs.
func NewCmdMerge(f *Factory, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{IO: f.IO, Args: f.Args, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "merge DIR... --out D",
		Short: "Combine the result directories of a sharded run",
		Long: `Merge combines the result directories written by "run --shard i/N" on several
machines. It checks that they come from the same configuration, that every shard
is present once and complete, and that every sample appears exactly once, then
writes the same samples and summary an unsharded run would have written.`,
		Example: `  $ pocketeval merge shard0 shard1 shard2 --out merged`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Out == "" {
				return FlagErrorf("--out is required")
			}
			if opts.DataDir == "" {
				opts.DataDir = DefaultDataDir()
			}
			opts.Dirs, opts.Tasks = args, f.Tasks()
			if len(opts.TaskFiles) > 0 {
				files, err := registry.Lookup(opts.Tasks, opts.TaskFiles)
				if err != nil {
					return &FlagError{err: err}
				}
				opts.Tasks = append(files, opts.Tasks...)
			}
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "merged result directory")
	cmd.Flags().StringVar(&opts.DataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory")
	cmd.Flags().BoolVar(&opts.NoRescore, "no-rescore", false, "do not re-score the shards' responses (by default a shard whose stored scores are not what its responses score is refused)")
	cmd.Flags().StringSliceVar(&opts.TaskFiles, "tasks", nil, "the task files or directories the shards ran, when they ran task files")
	return cmd
}

func mergeRun(ctx context.Context, opts *MergeOptions) error {
	// A shard is read as every reader reads a run: its summary must agree
	// with its samples, its samples with the digests of its end.
	for _, d := range opts.Dirs {
		if _, err := loadRun(opts.IO, d); err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("merge: %w", err)}
		}
	}
	sum, err := runner.Merge(ctx, runner.MergeOptions{
		Dirs: opts.Dirs, Out: opts.Out, DataDir: opts.DataDir, Command: opts.Args, Now: opts.Now,
		Build: ReadBuildInfo().Results(), Lookup: lookupTask(opts.Tasks), NoRescore: opts.NoRescore,
	})
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	PrintSummary(opts.IO.Out, sum)
	return nil
}
