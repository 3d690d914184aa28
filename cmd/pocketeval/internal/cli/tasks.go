package cli

import (
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/texttab"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	bfclscorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// TasksOptions are the options of `pocketeval tasks`.
type TasksOptions struct {
	IO    *IOStreams
	Tasks []evals.Task
	JSON  bool
}

// NewCmdTasks lists the known tasks.
func NewCmdTasks(f *Factory, runF func(*TasksOptions) error) *cobra.Command {
	opts := &TasksOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "List the benchmark tasks",
		Long:  "List every task with its dataset file, task version and primary metric.",
		Example: `  $ pocketeval tasks
  $ pocketeval tasks --json | jq -r '.tasks[].name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tasks = f.Tasks()
			if runF != nil {
				return runF(opts)
			}
			return tasksRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "machine-readable output")
	return cmd
}

func tasksRun(opts *TasksOptions) error {
	infos := make([]evals.TaskInfo, 0, len(opts.Tasks))
	for _, t := range opts.Tasks {
		infos = append(infos, t.Info())
	}
	if opts.JSON {
		return writeJSON(opts.IO, struct {
			Tasks []evals.TaskInfo `json:"tasks"`
		}{infos})
	}
	tw := texttab.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDATASET\tVERSION\tPRIMARY METRIC")
	hasBFCL := false
	for i, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", in.Name, strings.Join(in.DatasetFiles, ","), in.Version, headlineOf(in))
		if _, ok := opts.Tasks[i].(*bfcl.Task); ok {
			hasBFCL = true
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if hasBFCL {
		names := []string{}
		for _, h := range bfclscorer.Handlers() {
			names = append(names, h.Name)
		}
		fmt.Fprintf(opts.IO.Out, "\nBFCL handlers (run --bfcl-handler NAME, or a model name of BFCL's registry): %s\n", strings.Join(names, ", "))
	}
	return nil
}

// headlineOf is the metric `tasks` lists: the one suites, gates and the
// leaderboard report (cmmlu's acc_official_macro, not acc_official).
func headlineOf(in evals.TaskInfo) string {
	if in.Headline != "" {
		return in.Headline
	}
	return in.PrimaryMetric
}
