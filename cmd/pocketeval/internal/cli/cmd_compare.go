package cli

import (
	"errors"
	"fmt"
	"github.com/pocketeval/pocketeval/internal/texttab"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/rundir"
)

// CompareOptions are the options of `pocketeval compare`.
type CompareOptions struct {
	IO *IOStreams

	A, B      string   // the two result directories
	JSON      bool     // --json
	Alpha     float64  // --alpha
	Resamples int      // --resamples
	Seed      uint64   // --seed
	Tasks     []string // --tasks
}

// NewCmdCompare compares two result directories.
func NewCmdCompare(f *Factory, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two runs task by task with paired significance tests",
		Long: `Compare pairs the samples of two result directories (same dataset, same
sample ids) and reports, per task, both scores, the difference B−A with a 95%
paired-bootstrap interval, and a paired test: exact McNemar for pass/fail
metrics, paired bootstrap otherwise. "*" marks p < alpha, "~" a difference that
is not significant. It refuses, with the reason, when samples do not align.

Exit status: 0 when the runs were compared (whatever the differences), 2
when they cannot be: an unreadable result directory, no task that both
runs scored, or samples that do not align.`,
		Example: `  $ pocketeval compare runs/pocket-bf16 runs/pocket-q4
  $ pocketeval compare runs/a runs/b --tasks ifeval,gsm8k --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Alpha <= 0 || opts.Alpha >= 1 {
				return FlagErrorf("--alpha must be in (0,1)")
			}
			opts.A, opts.B = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "machine-readable output")
	fl.Float64Var(&opts.Alpha, "alpha", 0.05, "significance level")
	fl.IntVar(&opts.Resamples, "resamples", 10000, "paired-bootstrap resamples")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	fl.StringSliceVar(&opts.Tasks, "tasks", nil, "compare only these tasks")
	return cmd
}

func compareRun(opts *CompareOptions) error {
	a, err := rundir.Load(opts.A)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	b, err := rundir.Load(opts.B)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	c, err := compare.Runs(a, b, compare.Options{Alpha: opts.Alpha, Resamples: opts.Resamples, Seed: opts.Seed, Tasks: opts.Tasks})
	if err != nil {
		var ae *compare.AlignmentError
		var none *compare.NothingToCompareError
		if errors.As(err, &ae) || errors.As(err, &none) {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("cannot compare: %w", err)}
		}
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, newCompareJSON(opts.A, opts.B, c))
	}
	tw := texttab.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
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
	fmt.Fprintf(opts.IO.Out, "A = %s\nB = %s\n* significant at alpha=%g, ~ not significant\n", opts.A, opts.B, c.Alpha)
	for _, s := range c.Skipped {
		fmt.Fprintf(opts.IO.ErrOut, "skipped: %s\n", s)
	}
	if w := c.Reproduction.Warning(); w != "" {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", w)
	}
	return nil
}

// compareJSON is `compare --json` (docs/json.md): scores and differences
// in points (×100), as the table shows them.
type compareJSON struct {
	A       string            `json:"a"`
	B       string            `json:"b"`
	Alpha   float64           `json:"alpha"`
	Tasks   []taskCompareJSON `json:"tasks"`
	Skipped []string          `json:"skipped"`
	// Reproduction compares the responses of two runs of the same
	// configuration; null when their configurations differ.
	Reproduction *compare.Reproduction `json:"reproduction"`
}

type taskCompareJSON struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	// ScoreA and ScoreB are the runs' task-level scores and Diff is
	// ScoreB−ScoreA, as the table shows them; CILo and CIHi are the 95%
	// interval of the paired difference and P the paired test's p-value.
	ScoreA      float64 `json:"score_a"`
	ScoreB      float64 `json:"score_b"`
	Diff        float64 `json:"diff"`
	CILo        float64 `json:"ci_lo"`
	CIHi        float64 `json:"ci_hi"`
	P           float64 `json:"p"`
	Test        string  `json:"test"`
	Significant bool    `json:"significant"`
	N           int     `json:"n"`
	OnlyA       int     `json:"only_a"`
	OnlyB       int     `json:"only_b"`
}

func newCompareJSON(a, b string, c *compare.Comparison) compareJSON {
	doc := compareJSON{A: a, B: b, Alpha: c.Alpha, Tasks: []taskCompareJSON{}, Skipped: c.Skipped, Reproduction: c.Reproduction}
	if doc.Skipped == nil {
		doc.Skipped = []string{}
	}
	for _, t := range c.Tasks {
		doc.Tasks = append(doc.Tasks, taskCompareJSON{
			Task: t.Task, Metric: t.Metric, ScoreA: 100 * t.AggregateA, ScoreB: 100 * t.AggregateB,
			Diff: 100 * (t.AggregateB - t.AggregateA), CILo: 100 * t.Lo, CIHi: 100 * t.Hi, P: t.P, Test: t.Test, Significant: t.Significant,
			N: t.N, OnlyA: t.OnlyA, OnlyB: t.OnlyB,
		})
	}
	return doc
}

func fmtPValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
