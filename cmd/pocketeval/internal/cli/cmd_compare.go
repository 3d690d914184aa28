package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/internal/texttab"
	"github.com/pocketeval/pocketeval/rundir"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/results"
)

// CompareOptions are the options of `pocketeval compare`.
type CompareOptions struct {
	IO *IOStreams

	A, B      string   // the two result directories
	JSON      bool     // --json
	Quiet     bool     // --quiet: no progress line
	Alpha     float64  // --alpha
	Resamples int      // --resamples
	Seed      uint64   // --seed
	Tasks     []string // --tasks
	// AllowUnlike compares runs that differ in what decides scores
	// (--allow-unlike), marking the output; otherwise they are refused.
	AllowUnlike bool
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
is not significant, "°" a score not significantly above what random answers
score (the marks of every report). It refuses, with the reason, when samples do not align.

Exit status: 0 when the runs were compared (whatever the differences), 2
when they cannot be: an unreadable result directory, no task that both
runs scored, samples that do not align, or runs that differ in what decides
scores (--limit, --max-tokens, few-shot, template, thinking, seeds, task
versions; --allow-unlike compares them anyway, marked as unlike). Code
tasks are tested on pass@k per problem, estimated from the per-sample pass.`,
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
	fl.BoolVar(&opts.Quiet, "quiet", false, "print no progress on stderr")
	fl.Float64Var(&opts.Alpha, "alpha", 0.05, "significance level")
	fl.IntVar(&opts.Resamples, "resamples", 10000, "paired-bootstrap resamples")
	fl.Uint64Var(&opts.Seed, "seed", 1, "bootstrap seed")
	fl.StringSliceVar(&opts.Tasks, "tasks", nil, "compare only these tasks")
	fl.BoolVar(&opts.AllowUnlike, "allow-unlike", false, "compare runs that differ in what decides scores (limit, max tokens, few-shot, template, thinking, seeds, task versions), marked as unlike")
	acceptDataDir(fl, "compare")
	return cmd
}

func compareRun(opts *CompareOptions) error {
	a, err := loadRun(opts.IO, opts.A)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	b, err := loadRun(opts.IO, opts.B)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if why := sameRun(a, b); why != "" {
		fmt.Fprintf(opts.IO.ErrOut, "warning: A and B are the same run (%s): every difference below is 0 by construction; compare two runs to see one\n", why)
	}
	prog := progressFor(opts.IO, opts.Quiet || opts.JSON, "comparing", "tasks")
	total := 0
	for _, t := range a.Tasks() {
		if len(opts.Tasks) == 0 || slices.Contains(opts.Tasks, t) {
			total++
		}
	}
	prog.Start(total, 0)
	c, err := compare.Runs(a, b, compare.Options{Alpha: opts.Alpha, Resamples: opts.Resamples, Seed: opts.Seed, Tasks: opts.Tasks, AllowUnlike: opts.AllowUnlike, Progress: prog.Done})
	prog.Finish()
	if err != nil {
		var ae *compare.AlignmentError
		var none *compare.NothingToCompareError
		var ue *compare.UnlikeError
		if errors.As(err, &ae) || errors.As(err, &none) || errors.As(err, &ue) {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("cannot compare: %w", err)}
		}
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, newCompareJSON(opts.A, opts.B, c))
	}
	tw := texttab.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "TASK\tMETRIC\tA\tB\tB−A\t95%% CI\tp\tTEST\t\n")
	atChance := false
	score := func(v float64, ch *results.Chance) string {
		s := fmt.Sprintf("%.2f", 100*v)
		if ch != nil && !ch.Above {
			atChance = true
			s += results.MarkAtChance
		}
		return s
	}
	for _, t := range c.Tasks {
		mark := results.MarkNotSignificant
		if t.Significant {
			mark = results.MarkSignificant
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%+.2f\t[%+.2f, %+.2f]\t%s\t%s\t%s\n", t.Task, t.Metric,
			score(t.AggregateA, t.ChanceA), score(t.AggregateB, t.ChanceB), 100*(t.AggregateB-t.AggregateA), 100*t.Lo, 100*t.Hi, fmtPValue(t.P), t.Test, mark)
	}
	tw.Flush()
	fmt.Fprintf(opts.IO.Out, "A = %s\nB = %s\n%s\n", opts.A, opts.B, results.SignificanceLegend(c.Alpha))
	if atChance {
		fmt.Fprintln(opts.IO.Out, results.AtChanceLegend(""))
	}
	for _, t := range c.Tasks {
		switch {
		case !t.Tested():
			fmt.Fprintf(opts.IO.Out, "%s: no paired test (%s)\n", t.Task, t.NoTest)
		case t.Basis != "":
			fmt.Fprintf(opts.IO.Out, "%s: paired test on %s\n", t.Task, t.Basis)
		}
	}
	if l := limitMark(c.LimitA, c.LimitB); l != "" {
		fmt.Fprintln(opts.IO.Out, l)
	}
	if len(c.Unlike) > 0 {
		fmt.Fprintf(opts.IO.Out, "UNLIKE RUNS (--allow-unlike): they differ in what decides scores: %s\n", strings.Join(c.Unlike, "; "))
	}
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
	// LimitA and LimitB are the runs' --limit (0: every sample), Unlike
	// the settings deciding scores in which they differ (--allow-unlike).
	LimitA int      `json:"limit_a,omitempty"`
	LimitB int      `json:"limit_b,omitempty"`
	Unlike []string `json:"unlike,omitempty"`
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
	// ChanceA/B are each run's score against random answers (baseline in
	// points), when the task knows its baseline.
	ChanceA *chanceJSON `json:"chance_a,omitempty"`
	ChanceB *chanceJSON `json:"chance_b,omitempty"`
	// Basis is what the paired test ran on when not the metric's own
	// per-sample values; NoTest why no test was run.
	Basis  string `json:"basis,omitempty"`
	NoTest string `json:"no_test,omitempty"`
	N      int    `json:"n"`
	OnlyA  int    `json:"only_a"`
	OnlyB  int    `json:"only_b"`
}

func newCompareJSON(a, b string, c *compare.Comparison) compareJSON {
	doc := compareJSON{A: a, B: b, Alpha: c.Alpha, Tasks: []taskCompareJSON{}, Skipped: c.Skipped, LimitA: c.LimitA, LimitB: c.LimitB, Unlike: c.Unlike, Reproduction: c.Reproduction}
	if doc.Skipped == nil {
		doc.Skipped = []string{}
	}
	for _, t := range c.Tasks {
		doc.Tasks = append(doc.Tasks, taskCompareJSON{
			Task: t.Task, Metric: t.Metric, ScoreA: 100 * t.AggregateA, ScoreB: 100 * t.AggregateB,
			Diff: 100 * (t.AggregateB - t.AggregateA), CILo: 100 * t.Lo, CIHi: 100 * t.Hi, P: t.P, Test: t.Test, Significant: t.Significant, Basis: t.Basis, NoTest: t.NoTest,
			N: t.N, OnlyA: t.OnlyA, OnlyB: t.OnlyB, ChanceA: newChanceJSON(t.ChanceA), ChanceB: newChanceJSON(t.ChanceB),
		})
	}
	return doc
}

// acceptDataDir registers --data-dir on a command that reads result
// directories only, so that one set of flags serves run, verify, gate and
// it; its help says the value is not read.
func acceptDataDir(fl *pflag.FlagSet, command string) {
	fl.String("data-dir", "", command+" reads the stored samples only, no dataset: accepted for scripts that pass run's flags, not read")
}

// sameRun says why a and b are one run ("" when they are not): the same
// directory, or copies of one run (the same start and samples files).
func sameRun(a, b *rundir.Run) string {
	sa, ea := os.Stat(a.Dir)
	sb, eb := os.Stat(b.Dir)
	if ea == nil && eb == nil && os.SameFile(sa, sb) {
		return "the same directory"
	}
	ma, mb := a.Manifest, b.Manifest
	if ma.Start.Equal(mb.Start) && len(ma.SamplesSHA256) > 0 && maps.Equal(ma.SamplesSHA256, mb.SamplesSHA256) {
		return "copies of one run: the same start time and samples files"
	}
	return ""
}

func fmtPValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// limitMark marks limited runs ("" when neither is).
func limitMark(a, b int) string {
	if a == 0 && b == 0 {
		return ""
	}
	side := func(n int) string {
		if n == 0 {
			return "none"
		}
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("Limited run (--limit: A %s, B %s): the first samples of each task only, not comparable with the published numbers", side(a), side(b))
}
