package cli

import (
	"fmt"
	"github.com/pocketeval/pocketeval/internal/texttab"
	"io"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/results"
)

// printGroups renders the summary's task groups (lm-eval group files)
// under the task table: each group's aggregated metrics, subgroups
// indented under their group; a group without aggregate_metric_list shows
// its tasks only.
func printGroups(w io.Writer, s *results.Summary) {
	if len(s.GroupOrder) == 0 {
		return
	}
	depth := map[string]int{}
	for _, name := range s.GroupOrder {
		for _, m := range s.Groups[name].Members {
			if _, ok := s.Groups[m]; ok {
				depth[m] = depth[name] + 1
			}
		}
	}
	fmt.Fprintln(w)
	tw := texttab.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tMETRIC\tVALUE\t95% CI\tN\tTASKS")
	for _, name := range s.GroupOrder {
		g := s.Groups[name]
		label := strings.Repeat("  ", depth[name]) + name
		if g.Alias != "" && g.Alias != name {
			label += " (" + g.Alias + ")"
		}
		if len(g.Metrics) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t\t%d\t%d\n", label, g.Samples, len(g.Tasks))
			continue
		}
		keys := make([]string, 0, len(g.Metrics))
		for k := range g.Metrics {
			if k != g.Primary {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for i, k := range append([]string{g.Primary}, keys...) {
			m := g.Metrics[k]
			ci := "-"
			if m.Stderr > 0 {
				ci = "[" + pct(m.Lo) + ", " + pct(m.Hi) + "]"
			}
			if i == 0 {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", label, k, pct(m.Mean), ci, m.N, len(g.Tasks))
			} else {
				fmt.Fprintf(tw, "\t%s\t%s\t%s\t%d\t\n", k, pct(m.Mean), ci, m.N)
			}
		}
	}
	tw.Flush()
}
