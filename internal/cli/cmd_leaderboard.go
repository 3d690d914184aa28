package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals/suite"
	"github.com/pocketeval/pocketeval/leaderboard"
)

// leaderboardCommands returns compare, gate, leaderboard and suite.
func leaderboardCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdCompare(f), NewCmdGate(f), NewCmdLeaderboard(f), NewCmdSuite(f)}
}

func init() {
	suiteTaskNames = func(name string) ([]string, error) {
		s, err := suite.Get(name)
		if err != nil {
			return nil, err
		}
		return s.TaskNames(), nil
	}
}

// NewCmdCompare compares two result directories.
func NewCmdCompare(f *Factory) *cobra.Command {
	var (
		asJSON    bool
		alpha     float64
		resamples int
		seed      uint64
		tasks     []string
	)
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two runs task by task with paired significance tests",
		Long: `Compare pairs the samples of two result directories (same dataset, same
sample ids) and reports, per task, both scores, the difference B−A with a 95%
paired-bootstrap interval, and a paired test: exact McNemar for pass/fail
metrics, paired bootstrap otherwise. "*" marks p < alpha, "~" a difference that
is not significant. It refuses, with the reason, when samples do not align.`,
		Example: `  $ pocketeval compare runs/pocket-bf16 runs/pocket-q4
  $ pocketeval compare runs/a runs/b --tasks ifeval,gsm8k --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if alpha <= 0 || alpha >= 1 {
				return FlagErrorf("--alpha must be in (0,1)")
			}
			a, err := leaderboard.Load(args[0])
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			b, err := leaderboard.Load(args[1])
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			c, err := leaderboard.Compare(a, b, leaderboard.CompareOptions{Alpha: alpha, Resamples: resamples, Seed: seed, Tasks: tasks})
			if err != nil {
				var ae *leaderboard.AlignmentError
				if errors.As(err, &ae) {
					return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("cannot compare: %w", err)}
				}
				return err
			}
			if asJSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(c)
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "TASK\tMETRIC\tA\tB\tB−A\t95%% CI\tp\tTEST\t\n")
			for _, t := range c.Tasks {
				mark := "~"
				if t.Significant {
					mark = "*"
				}
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%+.2f\t[%+.2f, %+.2f]\t%s\t%s\t%s\n", t.Task, t.Metric,
					100*t.AggregateA, 100*t.AggregateB, 100*(t.AggregateB-t.AggregateA), 100*t.Lo, 100*t.Hi, fmtPValue(t.P), t.Test, mark)
			}
			tw.Flush()
			fmt.Fprintf(f.IO.Out, "A = %s\nB = %s\n* significant at alpha=%g, ~ not significant\n", args[0], args[1], c.Alpha)
			for _, s := range c.Skipped {
				fmt.Fprintf(f.IO.ErrOut, "skipped: %s\n", s)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	cmd.Flags().Float64Var(&alpha, "alpha", 0.05, "significance level")
	cmd.Flags().IntVar(&resamples, "resamples", 10000, "paired-bootstrap resamples")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "bootstrap seed")
	cmd.Flags().StringSliceVar(&tasks, "tasks", nil, "compare only these tasks")
	return cmd
}

func fmtPValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// NewCmdGate applies a release policy.
func NewCmdGate(f *Factory) *cobra.Command {
	var baseline, candidate, policy, junit, markdown string
	var asJSON bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "gate --baseline A --candidate B --policy gate.yaml",
		Short: "Decide whether a candidate model regresses against a baseline",
		Long: `Gate compares a candidate run with a baseline run under a policy (per-task
maximum drop in points, minimum score, whether a drop must be significant to
fail, and a suite-average floor) and exits:

  0  pass
  1  regression (a task or the suite average fails the policy)
  2  usage or configuration error (bad flags, unreadable runs or policy,
     samples that do not align)

--junit writes one JUnit test case per task; --markdown writes a table fit for
a CI step summary. See docs/ci.md for a GitHub Actions example.`,
		Example: `  $ pocketeval gate --baseline runs/release --candidate runs/pr --policy gate.yaml \
      --junit gate.xml --markdown "$GITHUB_STEP_SUMMARY"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if baseline == "" || candidate == "" || policy == "" {
				return FlagErrorf("--baseline, --candidate and --policy are required")
			}
			p, err := leaderboard.ReadPolicy(policy)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			a, err := leaderboard.Load(baseline)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			b, err := leaderboard.Load(candidate)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			g, err := leaderboard.Gate(a, b, p, seed)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			if junit != "" {
				x, err := g.JUnit()
				if err != nil {
					return err
				}
				if err := os.WriteFile(junit, x, 0o644); err != nil {
					return &ExitCodeError{Code: ExitUsage, Err: err}
				}
			}
			md := g.Markdown()
			if markdown != "" {
				fh, err := os.OpenFile(markdown, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
				if err != nil {
					return &ExitCodeError{Code: ExitUsage, Err: err}
				}
				_, werr := fh.WriteString(md)
				if cerr := fh.Close(); werr == nil {
					werr = cerr
				}
				if werr != nil {
					return &ExitCodeError{Code: ExitUsage, Err: werr}
				}
			}
			if asJSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(g); err != nil {
					return err
				}
			} else {
				fmt.Fprint(f.IO.Out, md)
			}
			if !g.Pass {
				for _, fl := range g.Failures {
					fmt.Fprintf(f.IO.ErrOut, "regression: %s\n", fl)
				}
				return &ExitCodeError{Code: ExitError}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&baseline, "baseline", "", "baseline result directory")
	fl.StringVar(&candidate, "candidate", "", "candidate result directory")
	fl.StringVar(&policy, "policy", "", "policy file (YAML)")
	fl.StringVar(&junit, "junit", "", "write JUnit XML here")
	fl.StringVar(&markdown, "markdown", "", "append a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY)")
	fl.BoolVar(&asJSON, "json", false, "print the verdict as JSON")
	fl.Uint64Var(&seed, "seed", 1, "bootstrap seed")
	return cmd
}

// NewCmdLeaderboard renders runs as a leaderboard.
func NewCmdLeaderboard(f *Factory) *cobra.Command {
	var htmlOut, mdOut, title string
	cmd := &cobra.Command{
		Use:   "leaderboard DIR...",
		Short: "Render result directories as an HTML or Markdown leaderboard",
		Long: `Leaderboard builds a models × tasks table (scores ×100 with 95% intervals)
from result directories, and with --html writes one self-contained HTML file
(no network access) with a sortable table and SVG plots of score vs decode
speed and score vs peak memory, from the runs' own speed figures.`,
		Example: `  $ pocketeval leaderboard runs/* --html board.html --markdown board.md`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var runs []*leaderboard.Run
			for _, d := range args {
				r, err := leaderboard.Load(d)
				if err != nil {
					return &ExitCodeError{Code: ExitUsage, Err: err}
				}
				runs = append(runs, r)
			}
			b, err := leaderboard.NewBoard(title, runs)
			if err != nil {
				return err
			}
			if htmlOut != "" {
				h, err := b.HTML()
				if err != nil {
					return err
				}
				if err := os.WriteFile(htmlOut, h, 0o644); err != nil {
					return err
				}
			}
			md := b.Markdown()
			if mdOut != "" {
				if err := os.WriteFile(mdOut, []byte(md), 0o644); err != nil {
					return err
				}
			}
			if htmlOut == "" && mdOut == "" {
				fmt.Fprint(f.IO.Out, md)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&htmlOut, "html", "", "write a self-contained HTML leaderboard here")
	cmd.Flags().StringVar(&mdOut, "markdown", "", "write a Markdown leaderboard here")
	cmd.Flags().StringVar(&title, "title", "pocketeval leaderboard", "page title")
	return cmd
}

// NewCmdSuite prints a run's suite table against the published numbers.
func NewCmdSuite(f *Factory) *cobra.Command {
	var asJSON, list bool
	var name string
	cmd := &cobra.Command{
		Use:   "suite DIR",
		Short: "Show a run's suite table and average against the published numbers",
		Example: `  $ pocketeval suite runs/pocket --suite pocket11
  $ pocketeval suite --list`,
		Args: func(cmd *cobra.Command, args []string) error {
			if list {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if list {
				for _, n := range suite.Names() {
					s, err := suite.Get(n)
					if err != nil {
						return err
					}
					fmt.Fprintf(f.IO.Out, "%s\t%s\n", n, s.Description)
				}
				return nil
			}
			s, err := suite.Get(name)
			if err != nil {
				return &FlagError{err: err}
			}
			r, err := leaderboard.Load(args[0])
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			rep, err := leaderboard.SuiteOf(r, s, 0, 1)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			rep.Print(f.IO.Out)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "suite", "pocket11", "suite name")
	cmd.Flags().BoolVar(&list, "list", false, "list the suites")
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	return cmd
}

// printSuite prints the suite table of a finished run.
func printSuite(w interface{ Write([]byte) (int, error) }, name, dir string) error {
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
