package gate

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/suite"
)

// TaskVerdict is the gate's decision on one task.
type TaskVerdict struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	// Status is the candidate's task status (results.TaskSummary.Status;
	// "missing" when the candidate or the baseline lacks the task).
	Status string `json:"status"`
	// Baseline and Candidate are the scores ×100, Delta their difference
	// in points, CILo and CIHi its paired 95% interval and P the paired
	// test's p-value; all nil when the task was not measured in both runs.
	Baseline  *float64 `json:"baseline"`
	Candidate *float64 `json:"candidate"`
	Delta     *float64 `json:"delta"`
	CILo      *float64 `json:"delta_ci_lo"`
	CIHi      *float64 `json:"delta_ci_hi"`
	P         *float64 `json:"p"`
	Test      string   `json:"test,omitempty"`
	Pass      bool     `json:"pass"`
	Reasons   []string `json:"reasons,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// Options configure Gate.
type Options struct {
	// Seed makes the paired bootstrap deterministic.
	Seed uint64
	// AllowUnlike gates runs that differ in what decides scores
	// (compare.Unlike) instead of refusing them: the gate then fails, and
	// says why.
	AllowUnlike bool
	// Hints word the caller's switches in the gate's report lines.
	Hints Hints
}

// Hints word, in the caller's terms (the command line's flags), what the
// gate's report lines point to; the gate names no flag itself. An empty
// hint is left out of the line.
type Hints struct {
	// AllowUnlike is how unlike runs were let through ("--allow-unlike").
	AllowUnlike string
	// Limit is the sample limit's switch ("--limit").
	Limit string
	// IsolatedVerdicts is how code tasks get isolated verdicts ("run code
	// tasks with --verdict-mode isolated").
	IsolatedVerdicts string
	// Measures words where a budget's missing measure comes from, by what
	// is missing.
	Measures map[Measure]string
}

// Measure is what a budget found no measurement of.
type Measure int

const (
	// MeasureSpeed: a decode or prefill speed.
	MeasureSpeed Measure = iota + 1
	// MeasureEnergy: energy per inference.
	MeasureEnergy
	// MeasureBatteryEnergy: energy measured from the battery.
	MeasureBatteryEnergy
	// MeasureBatteryCapacity: the battery's capacity, for a bench row with
	// energy.
	MeasureBatteryCapacity
)

// paren is " (s)", or "" for no s.
func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// GateResult is the whole verdict.
type GateResult struct {
	// Hints are Options.Hints: how the report lines word the caller's
	// switches.
	Hints Hints         `json:"-"`
	Pass  bool          `json:"pass"`
	Tasks []TaskVerdict `json:"tasks"`
	// Unlike lists how the runs differ in what decides scores (only with
	// Options.AllowUnlike); such a gate fails.
	Unlike []string `json:"unlike,omitempty"`
	// LimitBaseline and LimitCandidate are the runs' --limit (0: every
	// sample); a limited run's numbers are not the benchmark's.
	LimitBaseline  int `json:"limit_baseline"`
	LimitCandidate int `json:"limit_candidate"`
	// Suite names the suite whose average is reported (when the policy
	// has a suite or a floor); Average is the candidate's suite average
	// as `pocketeval suite` computes it, nil when undefined, and
	// AvgMissing says which tasks make it so.
	Suite      string   `json:"suite,omitempty"`
	Average    *float64 `json:"suite_average"`
	AvgMissing []string `json:"suite_average_missing,omitempty"`
	AvgFloor   *float64 `json:"suite_average_floor"`
	Failures   []string `json:"failures"`
	Alpha      float64  `json:"alpha"`
	Baseline   string   `json:"baseline"`
	Candidate  string   `json:"candidate"`
	// Budgets are the policy's on-device budgets (AddBudgets).
	Budgets []BudgetVerdict `json:"budgets,omitempty"`
	// Warnings say what the gate compared but should not be trusted for a
	// release: code tasks judged with official verdicts when the policy
	// does not require isolated ones.
	Warnings []string `json:"warnings,omitempty"`
}

// Gate applies the policy to candidate vs baseline. Scores, minimum
// scores and the suite average are SuiteAverage's numbers (each task's
// headline metric), the ones `suite` and `leaderboard` show; whether a drop
// is significant comes from the paired test over per-sample values of the
// primary metric (Compare). A required task (require_tasks, or a task with
// its own rule) that either run lacks, or in which the candidate scored
// nothing, fails with its own verdict and reason.
func Gate(baseline, candidate *rundir.Run, p *Policy, o Options) (*GateResult, error) {
	seed := o.Seed
	g := &GateResult{Hints: o.Hints, Pass: true, Alpha: p.Alpha, Baseline: baseline.Dir, Candidate: candidate.Dir, AvgFloor: p.SuiteAverageFloor, Failures: []string{},
		LimitBaseline: baseline.Manifest.Config.Limit, LimitCandidate: candidate.Manifest.Config.Limit}
	cmp, err := compare.Runs(baseline, candidate, compare.Options{Alpha: p.Alpha, Seed: seed, AllowUnlike: o.AllowUnlike})
	var none *compare.NothingToCompareError
	switch {
	case errors.As(err, &none):
		cmp = &compare.Comparison{Alpha: p.Alpha, Unlike: compare.Unlike(baseline, candidate)}
	case err != nil:
		return nil, err
	}
	if len(cmp.Unlike) > 0 {
		g.Unlike = cmp.Unlike
		g.Pass = false
		g.Failures = append(g.Failures, "the runs are unlike"+paren(g.Hints.AllowUnlike)+": "+strings.Join(cmp.Unlike, "; "))
	}
	entries := make([]suite.Entry, len(cmp.Tasks))
	for i, tc := range cmp.Tasks {
		entries[i] = suite.Entry{Task: tc.Task}
	}
	base, _, err := rundir.SuiteAverage(baseline, entries, rundir.AverageOptions{})
	if err != nil {
		return nil, err
	}
	cand, _, err := rundir.SuiteAverage(candidate, entries, rundir.AverageOptions{})
	if err != nil {
		return nil, err
	}
	failOnErrors := p.FailOnErrors == nil || *p.FailOnErrors
	for i, tc := range cmp.Tasks {
		v := verdict(tc, base[i], cand[i], p)
		checkDecision(&v, candidate.Summary.Tasks[tc.Task], p.Tasks[tc.Task])
		if ts := candidate.Summary.Tasks[tc.Task]; failOnErrors && ts.Errors > 0 {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("%d samples failed in the candidate run; first: %s", ts.Errors, ts.FirstError))
		}
		g.warnOfficialVerdicts(tc.Task, p, baseline, candidate)
		if want := p.CodeVerdictMode; want != "" {
			for _, r := range []struct {
				name string
				run  *rundir.Run
			}{{"baseline", baseline}, {"candidate", candidate}} {
				if got, ok := r.run.Manifest.CodeVerdictMode(tc.Task); ok && string(got) != want {
					v.Pass = false
					v.Reasons = append(v.Reasons, fmt.Sprintf("the %s run judged it with %s verdicts; the policy requires %s", r.name, got, want))
				}
			}
		}
		g.add(v)
	}
	for _, t := range p.required() {
		if !g.has(t) {
			g.add(unmeasured(t, baseline, candidate))
		}
	}
	if p.suite != nil {
		rep, err := rundir.SuiteOf(candidate, p.suite, 0, seed)
		if err != nil {
			return nil, err
		}
		g.Suite, g.Average, g.AvgMissing = p.suite.Name, rep.Average, rep.Missing
		g.checkFloor(p.SuiteAverageFloor)
	}
	return g, nil
}

// unmeasured is the failing verdict of a required task that was not
// measured in both runs, with the reason.
func unmeasured(task string, baseline, candidate *rundir.Run) TaskVerdict {
	v := TaskVerdict{Task: task, Status: "missing"}
	var why []string
	for _, side := range []struct {
		name string
		r    *rundir.Run
	}{{"baseline", baseline}, {"candidate", candidate}} {
		ts, ok := side.r.Summary.Tasks[task]
		switch {
		case !ok:
			why = append(why, "missing from the "+side.name+" run")
		case ts.Scored == 0 && ts.Errors > 0:
			why = append(why, fmt.Sprintf("failed in the %s run: all %d samples failed; first: %s", side.name, ts.Errors, ts.FirstError))
		case ts.Scored == 0:
			why = append(why, "no scored samples in the "+side.name+" run")
		}
		if side.name == "candidate" && ok {
			v.Status, v.Metric = ts.Status(), ts.Headline()
		}
	}
	v.Reasons = []string{"required by the policy but " + strings.Join(why, "; ")}
	return v
}

// required lists the tasks the policy names (require_tasks and the tasks
// with their own rule), sorted and without repeats.
func (p *Policy) required() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range p.RequireTasks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for t := range p.Tasks {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// add records a task's verdict; a failed one fails the gate.
func (g *GateResult) add(v TaskVerdict) {
	if !v.Pass {
		g.Pass = false
		g.Failures = append(g.Failures, v.Task+": "+strings.Join(v.Reasons, "; "))
	}
	g.Tasks = append(g.Tasks, v)
}

func (g *GateResult) has(task string) bool {
	for _, v := range g.Tasks {
		if v.Task == task {
			return true
		}
	}
	return false
}

// checkFloor applies the suite-average floor, if any: an average below it,
// or no average at all (a task missing or not complete), fails the gate.
func (g *GateResult) checkFloor(floor *float64) {
	switch {
	case floor == nil:
	case g.Average == nil:
		g.Pass = false
		g.Failures = append(g.Failures, fmt.Sprintf("suite average (%s) is n/a, so the floor %.2f cannot be met; not complete: %s", g.Suite, *floor, strings.Join(g.AvgMissing, "; ")))
	case *g.Average < *floor:
		g.Pass = false
		g.Failures = append(g.Failures, fmt.Sprintf("suite average (%s) %.2f is below the floor %.2f", g.Suite, *g.Average, *floor))
	}
}

// warnOfficialVerdicts warns when a code task of either run was judged
// with official verdicts and the policy does not require isolated ones:
// the official harness's one-process rule passes forged results
// (unittest.mock.ANY, objects with a forged __eq__, subclassed
// containers ...), so such a gate can be gamed (docs/sandbox.md, "Verdict
// modes").
func (g *GateResult) warnOfficialVerdicts(task string, p *Policy, runs ...*rundir.Run) {
	if p.CodeVerdictMode == "isolated" {
		return
	}
	for _, r := range runs {
		if mode, ok := r.Manifest.CodeVerdictMode(task); ok && mode == results.VerdictOfficial {
			also := ""
			if g.Hints.IsolatedVerdicts != "" {
				also = " and " + g.Hints.IsolatedVerdicts
			}
			g.Warnings = append(g.Warnings, fmt.Sprintf("%s: compared with official verdicts, which pass forged results; "+
				"a release gate should set code_verdict_mode: isolated%s", task, also))
			return
		}
	}
}

// verdict applies the policy's rule for one task: base and cand are the
// two runs' scores, tc the paired comparison.
func verdict(tc compare.TaskComparison, base, cand rundir.SuiteRow, p *Policy) TaskVerdict {
	v := TaskVerdict{Task: tc.Task, Metric: cand.Metric, Status: cand.Status, Test: tc.Test, Pass: true}
	if base.Score == nil || cand.Score == nil {
		v.Pass = false
		v.Reasons = append(v.Reasons, "no scored samples in the baseline or candidate run")
		return v
	}
	delta := *cand.Score - *base.Score
	v.Baseline, v.Candidate, v.Delta = base.Score, cand.Score, &delta
	if tc.Tested() {
		lo, hi, pv := 100*tc.Lo, 100*tc.Hi, tc.P
		v.CILo, v.CIHi, v.P = &lo, &hi, &pv
		switch {
		case tc.Basis != "":
			v.Notes = append(v.Notes, "interval and p from the paired test on "+tc.Basis)
		case cand.Metric != tc.Metric:
			v.Notes = append(v.Notes, fmt.Sprintf("interval and p from the paired test on per-sample %s", tc.Metric))
		}
	} else {
		v.Notes = append(v.Notes, "no paired test: "+tc.NoTest)
	}
	maxDrop, minScore, requireSig := p.rule(tc.Task)
	if minScore != nil && *cand.Score < *minScore {
		v.Pass = false
		v.Reasons = append(v.Reasons, fmt.Sprintf("score %.2f is below the minimum %.2f", *cand.Score, *minScore))
	}
	if rel := p.minRelative(tc.Task); rel != nil && *base.Score > 0 && 100**cand.Score / *base.Score < *rel {
		v.Pass = false
		v.Reasons = append(v.Reasons, fmt.Sprintf("score %.2f is %.2f%% of the baseline's %.2f, below the required %.2f%%", *cand.Score, 100**cand.Score / *base.Score, *base.Score, *rel))
	}
	if maxDrop != nil && -delta > *maxDrop {
		if !tc.Tested() {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("drop of %.2f points exceeds the allowed %.2f and cannot be tested (%s): failing closed", -delta, *maxDrop, tc.NoTest))
		} else if requireSig && !tc.Significant {
			v.Notes = append(v.Notes, fmt.Sprintf("drop of %.2f points exceeds %.2f but is not significant (p=%.3g ≥ %g): allowed", -delta, *maxDrop, tc.P, p.Alpha))
		} else {
			v.Pass = false
			v.Reasons = append(v.Reasons, fmt.Sprintf("drop of %.2f points exceeds the allowed %.2f (p=%.3g)", -delta, *maxDrop, tc.P))
		}
	}
	return v
}
