package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals/bfclmt"
	"github.com/pocketeval/pocketeval/results"
)

// BFCLScoreOptions are the options of `pocketeval bfcl-score`.
type BFCLScoreOptions struct {
	IO   *IOStreams
	Dirs []string
	FC   bool // --fc: the function-calling tasks (bfcl_*_fc)
	JSON bool
}

// NewCmdBFCLScore computes BFCL's overall score from result directories.
func NewCmdBFCLScore(f *Factory, runF func(*BFCLScoreOptions) error) *cobra.Command {
	opts := &BFCLScoreOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "bfcl-score DIR...",
		Short: "BFCL's overall accuracy from the BFCL tasks of result directories, weighted as the leaderboard weighs them",
		Long: `bfcl-score reads the summaries of result directories, takes the accuracy of
each BFCL v4 task (bfcl_simple ... bfcl_multi_turn_long_context; with --fc the
function-calling tasks, bfcl_*_fc) and combines them as BFCL's leaderboard does
(gorilla 6ea57973, BFCL v4): 10% non-live AST, 10% live AST, 10% irrelevance,
30% multi-turn, 40% agentic. Categories pocketeval does not have (Java and
JavaScript simple, web search, memory) and tasks the directories did not run
count as 0, as on the leaderboard; they are listed as missing.`,
		Example: `  $ pocketeval bfcl-score runs/bfcl
  $ pocketeval bfcl-score --fc --json runs/bfcl-fc runs/bfcl-mt-fc`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			if runF != nil {
				return runF(opts)
			}
			return bfclScoreRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.FC, "fc", false, "score the function-calling tasks (bfcl_*_fc)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

// bfclScore is what bfcl-score reports.
type bfclScore struct {
	bfclmt.Overall
	// Categories are the categories found: accuracy, samples and the
	// task and directory they come from.
	Categories map[string]bfclCategory `json:"categories"`
}

type bfclCategory struct {
	Accuracy float64 `json:"accuracy"`
	Samples  int     `json:"samples"`
	Task     string  `json:"task"`
	Dir      string  `json:"dir"`
}

func bfclScoreRun(opts *BFCLScoreOptions) error {
	found := map[string]bfclCategory{}
	for _, dir := range opts.Dirs {
		s, err := results.ReadSummary(dir)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("bfcl-score: %w", err)}
		}
		for task, ts := range s.Tasks {
			base, fc := strings.CutSuffix(task, "_fc")
			if fc != opts.FC {
				continue
			}
			cat, ok := bfclmt.TaskCategories[base]
			if !ok {
				continue
			}
			if prev, dup := found[cat]; dup {
				return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("bfcl-score: task %s is in both %s and %s", task, prev.Dir, dir)}
			}
			found[cat] = bfclCategory{Accuracy: ts.Primary, Samples: ts.Samples, Task: task, Dir: dir}
		}
	}
	if len(found) == 0 {
		mode := "prompt-mode"
		if opts.FC {
			mode = "function-calling (_fc)"
		}
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("bfcl-score: no %s BFCL v4 task in %s", mode, strings.Join(opts.Dirs, ", "))}
	}
	scores := map[string]bfclmt.CategoryScore{}
	for c, f := range found {
		scores[c] = bfclmt.CategoryScore{Accuracy: f.Accuracy, Count: f.Samples}
	}
	out := bfclScore{Overall: bfclmt.ComputeOverall(scores), Categories: found}
	w := opts.IO.Out
	if opts.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(w, "BFCL overall (v4 weights): %.2f%%\n", 100*out.Overall.Overall)
	for _, g := range []string{"non_live", "live", "irrelevance", "multi_turn", "agentic"} {
		fmt.Fprintf(w, "  %-12s %3.0f%%  %6.2f%%\n", g, out.Weights[g], 100*out.Groups[g])
	}
	cats := make([]string, 0, len(found))
	for c := range found {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		f := found[c]
		fmt.Fprintf(w, "  %-24s %6.2f%%  (%d samples, %s)\n", c, 100*f.Accuracy, f.Samples, f.Task)
	}
	if len(out.Missing) > 0 {
		fmt.Fprintf(w, "missing (counted as 0): %s\n", strings.Join(out.Missing, ", "))
	}
	return nil
}
