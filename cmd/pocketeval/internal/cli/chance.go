package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/pocketeval/pocketeval/internal/texttab"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// printChance renders, for the tasks that know their random baseline, the
// primary metric against random answers: the baseline, the exact
// one-sided p-value (stats.AboveChance) and the verdict.
func printChance(w io.Writer, s *results.Summary) {
	var rows []string
	for _, name := range s.Order {
		ts := s.Tasks[name]
		if ts.Chance == nil || ts.Scored == 0 {
			continue
		}
		c := ts.Chance
		m := ts.Metrics[c.Metric]
		rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\n", name, c.Metric, pct(m.Mean), pct(c.Baseline), formatP(c.P), chanceVerdict(c.Chance)))
	}
	if len(rows) == 0 {
		return
	}
	tw := texttab.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VS CHANCE\tMETRIC\tSCORE\tRANDOM\tP\tVERDICT")
	for _, r := range rows {
		fmt.Fprint(tw, r)
	}
	tw.Flush()
}

// chanceVerdict says whether a score is above chance at stats.ChanceAlpha.
func chanceVerdict(c stats.Chance) string {
	if c.Above {
		return "above chance"
	}
	return "at chance (not significantly above random answers)"
}

// formatP prints a p-value with two significant digits, "<1e-6" below.
func formatP(p float64) string {
	if p < 1e-6 {
		return "<1e-6"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}
