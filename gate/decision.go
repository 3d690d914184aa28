package gate

import (
	"fmt"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// checkDecision applies a task's decision keys (min_coverage_at_error,
// max_ece; docs/decisions.md) to the candidate's summary of it: the share
// of test decisions the threshold chosen on the calibration split acts on,
// and the expected calibration error of its confidences, both in points. A
// task without those metrics (not a decision task) fails the key.
func checkDecision(v *TaskVerdict, ts *results.TaskSummary, r Rule) {
	for _, k := range []struct {
		key, metric string
		bound       *float64
		atLeast     bool
	}{
		{"min_coverage_at_error", "coverage_at_error", r.MinCoverageAtError, true},
		{"max_ece", "ece", r.MaxECE, false},
	} {
		if k.bound == nil {
			continue
		}
		var m stats.Summary
		ok := false
		if ts != nil {
			m, ok = ts.Metrics[k.metric]
		}
		if !ok {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("%s needs a decision task (a task file with a decision block): the candidate reports no %s", k.key, k.metric))
			continue
		}
		x := 100 * m.Mean
		switch {
		case k.atLeast && x < *k.bound:
			target := ""
			if d := ts.Decision; d != nil {
				target = fmt.Sprintf(" ≤ %.1f%% errors", 100*d.Operating.Target)
			}
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("coverage at%s %.2f is below the minimum %.2f", target, x, *k.bound))
		case !k.atLeast && x > *k.bound:
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("ece %.2f exceeds the maximum %.2f", x, *k.bound))
		default:
			v.Notes = append(v.Notes, fmt.Sprintf("%s %.2f within %s %.2f", k.metric, x, k.key, *k.bound))
		}
	}
}
