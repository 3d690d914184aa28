package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/taskfile"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/suite"
)

// SuiteOptions are the options of `pocketeval suite`.
type SuiteOptions struct {
	IO *IOStreams
	// Tasks lists the known tasks (to check a suite file's entries).
	Tasks func() []evals.Task

	Dir   string // the result directory
	Suite string // --suite
	List  bool   // --list
	JSON  bool   // --json
}

// NewCmdSuite prints a run's suite table against the published numbers.
func NewCmdSuite(f *Factory, runF func(*SuiteOptions) error) *cobra.Command {
	opts := &SuiteOptions{IO: f.IO, Tasks: f.Tasks}
	cmd := &cobra.Command{
		Use:   "suite DIR",
		Short: "Show a run's suite table and average against the published numbers",
		Example: `  $ pocketeval suite runs/pocket --suite pocket11
  $ pocketeval suite --list`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.List {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !opts.List {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return suiteRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Suite, "suite", "pocket11", "suite name, or a suite file (YAML, the schema of the embedded suites; docs/tasks.md)")
	cmd.Flags().BoolVar(&opts.List, "list", false, "list the suites")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "machine-readable output")
	acceptDataDir(cmd.Flags(), "suite")
	return cmd
}

func suiteRun(opts *SuiteOptions) error {
	if opts.List {
		var all []*suite.Suite
		for _, n := range suite.Names() {
			s, err := getSuite(n)
			if err != nil {
				return err
			}
			all = append(all, s)
		}
		if opts.JSON {
			return writeJSON(opts.IO, struct {
				Suites []*suite.Suite `json:"suites"`
			}{all})
		}
		for _, s := range all {
			fmt.Fprintf(opts.IO.Out, "%s\t%s\n", s.Name, s.Description)
		}
		return nil
	}
	s, err := loadSuite(opts.Suite, opts.Tasks())
	if err != nil {
		return err
	}
	r, err := loadRun(opts.IO, opts.Dir)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	rep, err := rundir.SuiteOf(r, s, 0, 1)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, rep)
	}
	rep.LimitSwitch = "--limit"
	rep.Print(opts.IO.Out)
	return nil
}

// loadSuite reads the suite called name (embedded) or the suite file name
// and checks its entries against the tasks they name (unknown tasks,
// metric overrides a task does not report). Its errors are usage errors
// naming the file, line and field.
func loadSuite(name string, all []evals.Task) (*suite.Suite, error) {
	s, err := getSuite(name)
	if err != nil {
		return nil, &FlagError{err: err}
	}
	info := func(task string) (suite.TaskMetrics, error) {
		ts, err := registry.Lookup(all, []string{task})
		if err != nil {
			return suite.TaskMetrics{}, err
		}
		in := ts[0].Info()
		return suite.TaskMetrics{Name: in.Name, PrimaryMetric: in.PrimaryMetric, Metrics: in.Metrics}, nil
	}
	if err := s.Check(info); err != nil {
		return nil, &FlagError{err: err}
	}
	return s, nil
}

// printSuite prints the suite table of a finished run.
func printSuite(w io.Writer, name, dir string) error {
	s, err := getSuite(name)
	if err != nil {
		return err
	}
	r, err := rundir.Load(dir)
	if err != nil {
		return err
	}
	rep, err := rundir.SuiteOf(r, s, 0, 1)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	rep.LimitSwitch = "--limit"
	rep.Print(w)
	return nil
}

// getSuite reads the embedded suite called name, or the suite file name,
// whose task-file entries are named by the task each file defines.
func getSuite(name string) (*suite.Suite, error) {
	return suite.Get(name, taskFileName)
}

// taskFileName is the name of the task a task file defines.
func taskFileName(path string) (string, error) {
	t, err := taskfile.Parse(path)
	if err != nil {
		return "", err
	}
	return t.Info().Name, nil
}
