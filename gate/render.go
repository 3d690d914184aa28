package gate

import (
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/junit"
)

// JUnit renders the verdict as JUnit XML: one test case per task.
func (g *GateResult) JUnit() ([]byte, error) {
	type failure = junit.Failure
	type testcase = junit.Case
	var cases []testcase
	if len(g.Unlike) > 0 {
		out := "the runs differ in what decides scores: " + strings.Join(g.Unlike, "; ")
		cases = append(cases, testcase{Name: "comparable_runs", Classname: "pocketeval.gate", SystemOut: out,
			Failure: &failure{Message: "unlike runs" + paren(withHint("compared with ", g.Hints.AllowUnlike)), Text: out}})
	}
	limit := g.limitNote()
	for _, v := range g.Tasks {
		tc := testcase{Name: v.Task, Classname: "pocketeval.gate", SystemOut: v.summary()}
		if limit != "" {
			tc.SystemOut += " [" + limit + "]"
		}
		if !v.Pass {
			tc.Failure = &failure{Message: strings.Join(v.Reasons, "; "), Text: tc.SystemOut}
		}
		cases = append(cases, tc)
	}
	if g.AvgFloor != nil {
		tc := testcase{Name: "suite_average", Classname: "pocketeval.gate"}
		switch {
		case g.Average == nil:
			tc.SystemOut = fmt.Sprintf("suite %s: average n/a, floor %.2f; not complete: %s", g.Suite, *g.AvgFloor, strings.Join(g.AvgMissing, "; "))
			tc.Failure = &failure{Message: "suite average is n/a: some of the suite's tasks are missing or not complete", Text: tc.SystemOut}
		default:
			tc.SystemOut = fmt.Sprintf("suite %s: average %.2f, floor %.2f", g.Suite, *g.Average, *g.AvgFloor)
			if *g.Average < *g.AvgFloor {
				tc.Failure = &failure{Message: "suite average below floor", Text: tc.SystemOut}
			}
		}
		cases = append(cases, tc)
	}
	for _, v := range g.Budgets {
		name, out, fail := v.junit()
		tc := testcase{Name: name, Classname: "pocketeval.gate.budgets", SystemOut: out}
		if fail != "" {
			tc.Failure = &failure{Message: fail, Text: out}
		}
		cases = append(cases, tc)
	}
	return junit.Marshal("pocketeval gate", cases)
}

// Markdown renders the verdict for a CI step summary.
func (g *GateResult) Markdown() string {
	var b strings.Builder
	if g.Pass {
		b.WriteString("## ✅ pocketeval gate: pass\n\n")
	} else {
		b.WriteString("## ❌ pocketeval gate: regression\n\n")
	}
	b.WriteString("| task | metric | baseline | candidate | Δ (points) | 95% CI of Δ | p | verdict |\n|---|---|---:|---:|---:|---|---:|---|\n")
	for _, v := range g.Tasks {
		verdict := "pass"
		if !v.Pass {
			verdict = "**FAIL**: " + strings.Join(v.Reasons, "; ")
		} else if len(v.Notes) > 0 {
			verdict = "pass (" + strings.Join(v.Notes, "; ") + ")"
		}
		if v.Delta == nil {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | – | – | – | %s |\n", v.Task, v.Metric, scoreOr(v.Baseline, "–"), scoreOr(v.Candidate, v.Status), verdict)
			continue
		}
		if v.P == nil {
			fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f | %+.2f | no test | – | %s |\n",
				v.Task, v.Metric, *v.Baseline, *v.Candidate, *v.Delta, verdict)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %s | %s |\n",
			v.Task, v.Metric, *v.Baseline, *v.Candidate, *v.Delta, *v.CILo, *v.CIHi, fmtP(*v.P), verdict)
	}
	b.WriteString(g.budgetRows())
	switch {
	case g.Suite == "":
	case g.Average != nil:
		fmt.Fprintf(&b, "\nSuite average (%s, candidate): **%.2f**", g.Suite, *g.Average)
		if g.AvgFloor != nil {
			fmt.Fprintf(&b, " (floor %.2f)", *g.AvgFloor)
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(&b, "\nSuite average (%s, candidate): **n/a** — every task of the suite must be present and complete; not complete: %s\n", g.Suite, strings.Join(g.AvgMissing, "; "))
	}
	if len(g.Unlike) > 0 {
		fmt.Fprintf(&b, "\n**Unlike runs** (%sso the gate fails): %s\n", withHint("compared with ", g.Hints.AllowUnlike+", "), strings.Join(g.Unlike, "; "))
	}
	if l := g.limitNote(); l != "" {
		fmt.Fprintf(&b, "\n%s\n", l)
	}
	fmt.Fprintf(&b, "\nSignificance level α = %g; paired tests: exact McNemar for pass/fail metrics, paired bootstrap otherwise.\n", g.Alpha)
	return b.String()
}

// limitNote marks a limited run ("" when neither run is limited).
func (g *GateResult) limitNote() string {
	if g.LimitBaseline == 0 && g.LimitCandidate == 0 {
		return ""
	}
	return fmt.Sprintf("Limited run (%sbaseline %s, candidate %s): the first samples of each task only, not the benchmark's numbers", withHint("", g.Hints.Limit+": "), limitText(g.LimitBaseline), limitText(g.LimitCandidate))
}

// withHint is prefix+hint, or "" when the hint (with its own trailing
// punctuation, if any) is empty.
func withHint(prefix, hint string) string {
	if strings.Trim(hint, ",: ") == "" {
		return ""
	}
	return prefix + hint
}

func limitText(n int) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprint(n)
}

// summary is the verdict's numbers in one line (JUnit system-out).
func (v TaskVerdict) summary() string {
	if v.Delta != nil && v.P == nil {
		return fmt.Sprintf("%s: baseline %.2f, candidate %.2f, delta %+.2f, no paired test %s", v.Metric, *v.Baseline, *v.Candidate, *v.Delta, strings.Join(v.Notes, "; "))
	}
	if v.Delta == nil {
		return fmt.Sprintf("%s: %s (baseline %s, candidate %s)", v.Metric, v.Status, scoreOr(v.Baseline, "–"), scoreOr(v.Candidate, "–"))
	}
	return fmt.Sprintf("%s: baseline %.2f, candidate %.2f, delta %+.2f [%.2f, %.2f], p=%.3g (%s) %s",
		v.Metric, *v.Baseline, *v.Candidate, *v.Delta, *v.CILo, *v.CIHi, *v.P, v.Test, strings.Join(v.Notes, "; "))
}

// scoreOr formats a score, or says why there is none.
func scoreOr(x *float64, none string) string {
	if x == nil {
		return none
	}
	return fmt.Sprintf("%.2f", *x)
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}
