package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/leaderboard"
	"github.com/pocketeval/pocketeval/rundir"
)

// leaderboardCommands returns compare, gate, leaderboard and suite.
func leaderboardCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdCompare(f, nil), NewCmdGate(f, nil), NewCmdLeaderboard(f, nil), NewCmdSuite(f, nil)}
}

// LeaderboardOptions are the options of `pocketeval leaderboard`.
type LeaderboardOptions struct {
	IO *IOStreams

	Dirs     []string // result directories
	HTML     string   // --html
	Markdown string   // --markdown
	Title    string   // --title
	Suite    string   // --suite: columns, average and reference row
	JSON     bool     // --json: the board as data on stdout
}

// NewCmdLeaderboard renders runs as a leaderboard.
func NewCmdLeaderboard(f *Factory, runF func(*LeaderboardOptions) error) *cobra.Command {
	opts := &LeaderboardOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "leaderboard DIR...",
		Short: "Render result directories as an HTML, Markdown or JSON leaderboard",
		Long: `Leaderboard builds a runs × tasks table (scores ×100 with 95% intervals,
columns grouped by capability) from result directories. With --html it writes
one self-contained HTML page (no network access): the table (cards on a
phone), sortable; plots of score against decode speed, peak memory and, where
measured, energy, with their Pareto fronts; and a drill-down per run and task.

Each run is named by its model file and identified by runtime, quantisation,
sample count and --limit, date and directory. A task with no scored sample is
shown as failed, never as 0. The average is n/a unless every task has a score
(the rule of suite and gate); such runs are listed after the ranked ones.

--suite makes a suite's tasks the columns and adds its published numbers as a
reference row (reported, not measured). A run's energy per inference comes from
the bench --json report saved in its directory as bench.json.

--json prints the same board as data on stdout (docs/json.md): per run its
identity, per task its score and interval or its status, the average or why
it is n/a, speed, memory, energy and the Pareto fronts. --html and
--markdown still write their files; without any of the three the Markdown
goes to stdout.`,
		Example: `  $ pocketeval leaderboard runs/* --html board.html --markdown board.md
  $ pocketeval leaderboard runs/* --suite pocket11 --html board.html
  $ pocketeval leaderboard runs/* --json > board.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			if runF != nil {
				return runF(opts)
			}
			return leaderboardRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.HTML, "html", "", "write a self-contained HTML leaderboard here")
	cmd.Flags().StringVar(&opts.Markdown, "markdown", "", "write a Markdown leaderboard here")
	cmd.Flags().StringVar(&opts.Title, "title", "pocketeval leaderboard", "page title")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the board as JSON on stdout")
	cmd.Flags().StringVar(&opts.Suite, "suite", "", "suite (name or file) whose tasks are the columns and whose published numbers are a reference row")
	acceptDataDir(cmd.Flags(), "leaderboard")
	return cmd
}

// capabilities are the built-in task families, the board's column groups.
func capabilities() []leaderboard.Capability {
	var out []leaderboard.Capability
	for _, f := range registry.Families() {
		c := leaderboard.Capability{Name: f.Capability}
		for _, t := range f.Tasks {
			c.Tasks = append(c.Tasks, t.Info().Name)
		}
		out = append(out, c)
	}
	return out
}

func leaderboardRun(opts *LeaderboardOptions) error {
	bo := leaderboard.BoardOptions{Title: opts.Title, Capabilities: capabilities(), LimitSwitch: "--limit"}
	if opts.Suite != "" {
		s, err := getSuite(opts.Suite)
		if err != nil {
			return &FlagError{err: fmt.Errorf("--suite: %w", err)}
		}
		bo.Suite = s
	}
	var loaded []*rundir.Run
	for _, d := range uniqueDirs(opts.IO, opts.Dirs) {
		r, err := loadRun(opts.IO, d)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
		loaded = append(loaded, r)
	}
	b, err := leaderboard.NewBoard(loaded, bo)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if opts.HTML != "" {
		h, err := b.HTML()
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.HTML, h, 0o644); err != nil {
			return fmt.Errorf("leaderboard: %w", err)
		}
	}
	md := b.Markdown()
	if opts.Markdown != "" {
		if err := os.WriteFile(opts.Markdown, []byte(md), 0o644); err != nil {
			return fmt.Errorf("leaderboard: %w", err)
		}
	}
	switch {
	case opts.JSON:
		return writeJSON(opts.IO, b.Report())
	case opts.HTML == "" && opts.Markdown == "":
		fmt.Fprint(opts.IO.Out, md)
	}
	return nil
}

// uniqueDirs drops a result directory named more than once (as another
// path to the same directory, a symlink or a trailing slash included), so
// one run is not ranked twice, and says so on stderr.
func uniqueDirs(io *IOStreams, dirs []string) []string {
	seen := map[string]string{}
	var out []string
	for _, d := range dirs {
		key := filepath.Clean(d)
		if abs, err := filepath.Abs(d); err == nil {
			key = abs
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				key = real
			}
		}
		if first, ok := seen[key]; ok {
			fmt.Fprintf(io.ErrOut, "note: %s is the same run directory as %s: listed once\n", d, first)
			continue
		}
		seen[key] = d
		out = append(out, d)
	}
	return out
}
