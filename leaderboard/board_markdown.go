package leaderboard

import (
	"fmt"
	"math"
	"strings"

	"github.com/pocketeval/pocketeval/rundir"
)

// Markdown renders the board as Markdown: the capability groups, the table
// (one column per task, in group order), the marks, each run's problems,
// and the Pareto fronts of the suite average.
func (b *Board) Markdown() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# %s\n\n", b.Title)
	hasEnergy := false
	for _, r := range b.Rows {
		hasEnergy = hasEnergy || r.Energy != nil
	}
	var groups []string
	for _, g := range b.Groups {
		groups = append(groups, g.Capability+": "+strings.Join(g.Tasks, ", "))
	}
	fmt.Fprintf(&s, "Columns by capability — %s.\n\n", strings.Join(groups, "; "))
	s.WriteString("| # | run | runtime | quant | N | date | average |")
	for _, t := range b.Tasks {
		fmt.Fprintf(&s, " %s |", t)
	}
	s.WriteString(" decode tok/s | peak MB |")
	if hasEnergy {
		s.WriteString(" J/inference |")
	}
	costs := costColumnsOf(b.Rows) // board_cost.go
	costNames, costAlign := costs.header()
	s.WriteString(costNames)
	s.WriteString("\n|---:|---|---|---|---:|---|---:|")
	for range b.Tasks {
		s.WriteString("---:|")
	}
	s.WriteString("---:|---:|")
	if hasEnergy {
		s.WriteString("---:|")
	}
	s.WriteString(costAlign)
	s.WriteString("\n")
	for _, r := range b.Rows {
		rank := ""
		if r.Rank > 0 {
			rank = fmt.Sprint(r.Rank)
		}
		name := mdEscape(r.Label)
		switch {
		case r.Reference:
			name = "*" + name + "* (reported, not measured)"
		case r.Failed():
			name += " **failed**"
		case r.IsPartial():
			name += " **partial**"
		}
		if r.VerdictMode != "" {
			name += " · " + r.VerdictMode + " verdicts"
		}
		n, date := "", ""
		if !r.Reference {
			n = fmt.Sprint(r.Samples)
			if r.Limit > 0 {
				n += fmt.Sprintf(" (limit %d)", r.Limit)
			}
			if !r.Date.IsZero() {
				date = r.Date.UTC().Format("2006-01-02")
			}
		}
		mean := "n/a"
		if r.Mean != nil {
			mean = fmt.Sprintf("%.2f", *r.Mean)
		}
		if r.QuantOf != nil && r.QuantOf.Pct != nil {
			mean += " (" + r.QuantOf.String() + ")"
		}
		if r.Reference && r.Mean != nil && len(b.Assumed) > 0 {
			mean += fmt.Sprintf(" (%s)", b.assumedCount())
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s | %s |", rank, name, mdEscape(r.RuntimeLabel()), r.Quant.Name, n, date, mean)
		for _, t := range b.Tasks {
			c := r.Cells[t]
			switch c.State {
			case CellScored:
				fmt.Fprintf(&s, " %.2f %s%s |", c.Value, mdCI(c), mdChance(c))
			case CellPartial:
				fmt.Fprintf(&s, " %.2f %s ⚠ %d/%d |", c.Value, mdCI(c), c.Scored, c.Samples)
			case CellReported:
				fmt.Fprintf(&s, " *%.2f* |", c.Value)
			case CellFailed:
				fmt.Fprintf(&s, " failed (0/%d) |", c.Samples)
			default:
				s.WriteString(" – |")
			}
		}
		fmt.Fprintf(&s, " %s | %s |", speed(r.DecodeTPS), optNum(r.PeakMB, 0))
		if hasEnergy {
			e := "–"
			if r.Energy != nil {
				e = fmt.Sprintf("%.2f ± %.2f", r.Energy.Joules, r.Energy.SD)
			}
			fmt.Fprintf(&s, " %s |", e)
		}
		s.WriteString(costs.cells(r.Cost))
		s.WriteString("\n")
	}
	s.WriteString("\nScores ×100 (each task's headline metric) with 95% intervals. The average is the unweighted mean over the tasks, n/a unless every task has a score; runs without one are not ranked. " +
		"failed: no sample scored; ⚠ k/n: only k of n samples scored; –: not in the run; reported rows are published numbers from the suite file, not measured.\n")
	if len(b.Assumed) > 0 {
		fmt.Fprintf(&s, "\n%s\n", b.AssumedNote())
	}
	for _, r := range b.Rows {
		if r.VerdictMode != "" {
			fmt.Fprintf(&s, "\nVerdicts: %s\n", VerdictModeNote)
			break
		}
	}
	for _, r := range b.Rows {
		if len(r.Problems) == 0 {
			continue
		}
		fmt.Fprintf(&s, "\n%s (%s):\n", mdEscape(r.Label), r.Dir)
		for _, p := range r.Problems {
			fmt.Fprintf(&s, "- %s\n", mdEscape(p))
		}
	}
	b.markdownFronts(&s)
	return s.String()
}

// markdownFronts lists the Pareto fronts of the suite average that more
// than one run is plotted on.
func (b *Board) markdownFronts(s *strings.Builder) {
	for _, f := range b.Fronts() {
		if f.Plotted < 2 {
			continue
		}
		var items []string
		for _, r := range f.Runs {
			items = append(items, fmt.Sprintf("%s (%.2f at %.*f %s)", mdEscape(r.Label), r.Score, f.Decimals, r.Value, f.Unit))
		}
		fmt.Fprintf(s, "\nPareto front, average vs %s: %s\n", f.Name, strings.Join(items, "; "))
	}
}

// mdChance marks a score that is not significantly above random answers.
func mdChance(c Cell) string {
	if !c.AtChance() {
		return ""
	}
	return fmt.Sprintf(" (at chance: %.2f)", 100*c.Chance.Baseline)
}

func mdCI(c Cell) string {
	if !c.HasCI() {
		return "(" + rundir.NoCI + ")"
	}
	return fmt.Sprintf("[%.1f, %.1f]", c.Lo, c.Hi)
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// speed formats tok/s: one decimal below 1,000, none from there.
func speed(x float64) string {
	if x >= 1000 {
		return optNum(x, 0)
	}
	return optNum(x, 1)
}

func optNum(x float64, prec int) string {
	if x <= 0 || math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, x)
}
