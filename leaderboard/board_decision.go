package leaderboard

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// chanceNote says how a cell's task compares with random answers ("" when
// the task has no baseline).
func chanceNote(c Cell) string {
	ch := c.Chance
	if ch == nil {
		return ""
	}
	verdict := "above chance"
	if !ch.Above {
		verdict = "at chance: not significantly above random answers"
	}
	return fmt.Sprintf("; random answers score %.2f on %s (exact test, p = %s): %s", 100*ch.Baseline, ch.Metric, pValue(ch.P), verdict)
}

func pValue(p float64) string {
	if p < 1e-6 {
		return "<1e-6"
	}
	return fmt.Sprintf("%.2g", p)
}

// The risk–coverage plot's geometry (px).
const (
	rcWidth, rcHeight = 360, 220
	rcLeft, rcRight   = 44, 12
	rcTop, rcBottom   = 12, 34
)

// decisionHTML renders a decision task's selective-prediction report: the
// test split's risk–coverage curve with the target error and the operating
// threshold chosen on the calibration split, then the numbers.
func decisionHTML(ts *results.TaskSummary) template.HTML {
	d := ts.Decision
	op := d.Operating
	pw, ph := float64(rcWidth-rcLeft-rcRight), float64(rcHeight-rcTop-rcBottom)
	x := func(cov float64) float64 { return rcLeft + cov*pw }
	y := func(risk float64) float64 { return rcTop + (1-risk)*ph }
	var b strings.Builder
	b.WriteString(`<figure class="decision"><svg class="rc" viewBox="0 0 360 220" width="360" height="220" role="img" aria-label="risk–coverage curve">`)
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(0), y(v), x(1), y(v))
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="end">%.0f%%</text>`, x(0)-4, y(v)+3, 100*v)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f" text-anchor="middle">%.0f%%</text>`, x(v), y(0)+14, 100*v)
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.1f" y="%d" text-anchor="middle">coverage (share of decisions acted on)</text>`, x(0.5), rcHeight-4)
	fmt.Fprintf(&b, `<text class="axis" transform="translate(11 %.1f) rotate(-90)" text-anchor="middle">error rate of those</text>`, y(0.5))
	fmt.Fprintf(&b, `<line class="target" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"><title>target error %.1f%%</title></line>`, x(0), y(op.Target), x(1), y(op.Target), 100*op.Target)
	if len(d.Curve) > 0 {
		var pts []string
		for _, p := range d.Curve {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Coverage), y(p.Risk)))
		}
		fmt.Fprintf(&b, `<polyline class="curve" points="%s"/>`, strings.Join(pts, " "))
	}
	if op.Found {
		fmt.Fprintf(&b, `<circle class="op" cx="%.1f" cy="%.1f" r="4"><title>threshold %.4g: test coverage %.1f%%, error %.1f%%</title></circle>`,
			x(op.Test.Coverage), y(op.Test.Risk), op.Chosen.Threshold, 100*op.Test.Coverage, 100*op.Test.Risk)
	}
	b.WriteString(`</svg><figcaption>`)
	esc := template.HTMLEscapeString
	fmt.Fprintf(&b, "Risk–coverage curve of %d test decisions scored by %s (dashed: the target error %.1f%%", d.TestItems, esc(d.Scoring), 100*op.Target)
	if op.Found {
		b.WriteString("; dot: the threshold chosen on the calibration split")
	}
	b.WriteString(").</figcaption></figure><dl class=\"facts decision\">")
	fact := func(k, v string) { fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", esc(k), esc(v)) }
	if op.Found {
		fact(fmt.Sprintf("coverage at ≤ %.1f%% errors", 100*op.Target), fmt.Sprintf("%.1f%% (95%% CI %.1f–%.1f%%), %.1f%% errors on the test split", 100*op.Test.Coverage, 100*op.CoverageLo, 100*op.CoverageHi, 100*op.Test.Risk))
		fact("threshold", fmt.Sprintf("%.4g (95%% CI %.4g–%.4g, %d bootstrap resamples of %d calibration decisions)", op.Chosen.Threshold, op.ThresholdLo, op.ThresholdHi, op.Resamples, d.CalibrationItems))
	} else {
		fact(fmt.Sprintf("coverage at ≤ %.1f%% errors", 100*op.Target), fmt.Sprintf("0%%: no threshold meets the target on the %d calibration decisions", d.CalibrationItems))
	}
	fact("AURC / E-AURC", fmt.Sprintf("%.4f / %.4f", d.AURC, d.EAURC))
	fact("temperature", fmt.Sprintf("%.4g: ECE %.4f → %.4f, NLL %.4f → %.4f", d.Temperature, d.ECE, d.ECECalibrated, d.NLL, d.NLLCalibrated))
	if t := ts.Timing; t != nil && t.LatencyMsMedian > 0 {
		fact("latency per decision", fmt.Sprintf("%.1f ms (median)", t.LatencyMsMedian))
	}
	b.WriteString("</dl>")
	if len(d.ByCandidates) > 0 {
		b.WriteString(`<div class="tablewrap"><table class="breakdown"><thead><tr><th>candidates</th><th>n</th><th>accuracy</th><th>chance</th><th>AURC</th><th>coverage at threshold</th><th>error at threshold</th></tr></thead><tbody>`)
		for _, s := range d.ByCandidates {
			cls := ""
			if c := chanceOfSlice(s.N, s.Accuracy, s.Chance); !c.Above {
				cls = ` class="chance"`
			}
			fmt.Fprintf(&b, "<tr%s><td>%d</td><td>%d</td><td>%.1f</td><td>%.1f</td><td>%.3f</td><td>%.1f%%</td><td>%.1f%%</td></tr>", cls, s.Candidates, s.N, 100*s.Accuracy, 100*s.Chance, s.AURC, 100*s.Coverage, 100*s.Risk)
		}
		b.WriteString("</tbody></table></div>")
	}
	return template.HTML(b.String())
}

// chanceOfSlice tests a slice's accuracy against its 1/k baseline.
func chanceOfSlice(n int, acc, p float64) stats.Chance {
	ps := make([]float64, n)
	for i := range ps {
		ps[i] = p
	}
	return stats.AboveChance(ps, int(acc*float64(n)+0.5))
}
