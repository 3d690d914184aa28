package results

import "fmt"

// The marks every report (run, suite, compare, the leaderboard's
// Markdown) puts after a number. Each glyph means one thing everywhere,
// and a report that uses one prints its legend line with it.
const (
	// MarkSignificant marks a difference significant at the comparison's
	// alpha; MarkNotSignificant one that is not.
	MarkSignificant    = "*"
	MarkNotSignificant = "~"
	// MarkAtChance marks a score not significantly above what random
	// answers score (TaskSummary.AtChance).
	MarkAtChance = "°"
	// MarkPartial marks a score over some of the selected samples only
	// (others failed or are missing).
	MarkPartial = "†"
)

// SignificanceLegend is the legend of MarkSignificant and
// MarkNotSignificant at alpha.
func SignificanceLegend(alpha float64) string {
	return fmt.Sprintf("%s significant at alpha=%g, %s not significant", MarkSignificant, alpha, MarkNotSignificant)
}

// AtChanceLegend is the legend of MarkAtChance; detail, when not empty,
// names the scores marked.
func AtChanceLegend(detail string) string {
	if detail != "" {
		detail += "; "
	}
	return fmt.Sprintf("%s at chance: not significantly above what random answers score (%sexact one-sided test at 5%%)", MarkAtChance, detail)
}

// PartialLegend is the legend of MarkPartial; detail names the scores
// marked.
func PartialLegend(detail string) string {
	return fmt.Sprintf("%s partial: only some selected samples were scored (%s); the score is over those", MarkPartial, detail)
}
