package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/leaderboard"
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
}

// NewCmdLeaderboard renders runs as a leaderboard.
func NewCmdLeaderboard(f *Factory, runF func(*LeaderboardOptions) error) *cobra.Command {
	opts := &LeaderboardOptions{IO: f.IO}
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
	return cmd
}

func leaderboardRun(opts *LeaderboardOptions) error {
	var runs []*leaderboard.Run
	for _, d := range opts.Dirs {
		r, err := leaderboard.Load(d)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
		runs = append(runs, r)
	}
	b, err := leaderboard.NewBoard(opts.Title, runs)
	if err != nil {
		return err
	}
	if opts.HTML != "" {
		h, err := b.HTML()
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.HTML, h, 0o644); err != nil {
			return err
		}
	}
	md := b.Markdown()
	if opts.Markdown != "" {
		if err := os.WriteFile(opts.Markdown, []byte(md), 0o644); err != nil {
			return err
		}
	}
	if opts.HTML == "" && opts.Markdown == "" {
		fmt.Fprint(opts.IO.Out, md)
	}
	return nil
}
