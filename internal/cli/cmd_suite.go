package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals/suite"
	"github.com/pocketeval/pocketeval/leaderboard"
)

// SuiteOptions are the options of `pocketeval suite`.
type SuiteOptions struct {
	IO *IOStreams

	Dir   string // the result directory
	Suite string // --suite
	List  bool   // --list
	JSON  bool   // --json
}

// NewCmdSuite prints a run's suite table against the published numbers.
func NewCmdSuite(f *Factory, runF func(*SuiteOptions) error) *cobra.Command {
	opts := &SuiteOptions{IO: f.IO}
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
	cmd.Flags().StringVar(&opts.Suite, "suite", "pocket11", "suite name")
	cmd.Flags().BoolVar(&opts.List, "list", false, "list the suites")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "machine-readable output")
	return cmd
}

func suiteRun(opts *SuiteOptions) error {
	if opts.List {
		var all []*suite.Suite
		for _, n := range suite.Names() {
			s, err := suite.Get(n)
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
	s, err := suite.Get(opts.Suite)
	if err != nil {
		return &FlagError{err: err}
	}
	r, err := leaderboard.Load(opts.Dir)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	rep, err := leaderboard.SuiteOf(r, s, 0, 1)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, rep)
	}
	rep.Print(opts.IO.Out)
	return nil
}

// printSuite prints the suite table of a finished run.
func printSuite(w io.Writer, name, dir string) error {
	s, err := suite.Get(name)
	if err != nil {
		return err
	}
	r, err := leaderboard.Load(dir)
	if err != nil {
		return err
	}
	rep, err := leaderboard.SuiteOf(r, s, 0, 1)
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	rep.Print(w)
	return nil
}
