package rundir

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pocketeval/pocketeval/internal/texttab"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/suite"
)

// SuiteRow is one task of a suite report (scores ×100).
type SuiteRow struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	// Status is the task's results.TaskSummary.Status ("missing" when the
	// run lacks it).
	Status string   `json:"status"`
	Score  *float64 `json:"score"` // nil: nothing scored
	Lo     float64  `json:"ci_lo"`
	Hi     float64  `json:"ci_hi"`
	N      int      `json:"n"`
	// Scored of Samples selected samples have a score; a row with fewer
	// (failed or missing samples) is partial, its score over the scored
	// ones only.
	Scored   int      `json:"scored"`
	Samples  int      `json:"samples"`
	Reported *float64 `json:"reported,omitempty"`
	Delta    *float64 `json:"delta,omitempty"`
	Note     string   `json:"note,omitempty"`
	// Chance is the task's primary metric against random answers, when
	// the task knows its baseline; JSON has its baseline in points
	// ("chance") and the verdict ("above_chance").
	Chance *results.Chance `json:"-"`
	// Assumed marks a member whose place in the suite is assumed.
	Assumed bool `json:"assumed,omitempty"`
}

// AtChance reports whether the row's task scored no better than random
// answers.
func (r SuiteRow) AtChance() bool { return r.Chance != nil && !r.Chance.Above }

// NoCI is what every report shows for a score without an interval (a
// task-level aggregate with neither per-unit values nor a standard error).
const NoCI = "no CI"

// HasCI reports whether the row's score has an interval: an aggregate
// without one has Lo = Hi and is never shown as [x, x].
func (r SuiteRow) HasCI() bool { return r.Hi > r.Lo }

// Partial reports whether some selected samples of the row's task failed
// or are missing.
func (r SuiteRow) Partial() bool { return r.Samples > 0 && r.Scored < r.Samples }

// MarshalJSON writes a row without numbers (null interval and N) when
// nothing was scored: no number is shown that was not measured.
func (r SuiteRow) MarshalJSON() ([]byte, error) {
	type plain SuiteRow
	type chance struct {
		Baseline *float64 `json:"chance,omitempty"`
		Above    *bool    `json:"above_chance,omitempty"`
	}
	var ch chance
	if r.Chance != nil {
		b, a := 100*r.Chance.Baseline, r.Chance.Above
		ch = chance{&b, &a}
	}
	if r.Score != nil {
		return json.Marshal(struct {
			plain
			chance
		}{plain(r), ch})
	}
	return json.Marshal(struct {
		plain
		chance
		Lo *float64 `json:"ci_lo"`
		Hi *float64 `json:"ci_hi"`
		N  *int     `json:"n"`
	}{plain: plain(r), chance: ch})
}

// SuiteReport is a run's suite table and average.
type SuiteReport struct {
	Suite string     `json:"suite"`
	Rows  []SuiteRow `json:"rows"`
	// Average is nil unless every task is present and complete.
	Average  *float64 `json:"average"`
	AvgLo    float64  `json:"average_ci_lo"`
	AvgHi    float64  `json:"average_ci_hi"`
	Reported *float64 `json:"reported_average"`
	Delta    *float64 `json:"average_delta"`
	// Missing names each task that is not complete, with the reason.
	Missing []string `json:"missing"`
	// Partial is the mean over the scored tasks (not the suite average).
	Partial *float64 `json:"partial_average"`
	// Limit is the run's --limit (0: every sample): a limited run's
	// numbers are not comparable with published ones.
	Limit int `json:"limit"`
	// Assumed lists the members whose place in the suite is assumed, not
	// published: the reported average may be over other benchmarks.
	Assumed []string `json:"assumed_members,omitempty"`
	// LimitSwitch names the sample limit in the printed report the way
	// the caller does (the command line: "--limit"); "" reads "limit".
	LimitSwitch string `json:"-"`
}

// MarshalJSON writes the average's interval as null when there is no
// average.
func (rep SuiteReport) MarshalJSON() ([]byte, error) {
	type plain SuiteReport
	p := plain(rep)
	if p.Missing == nil {
		p.Missing = []string{}
	}
	if rep.Average != nil {
		return json.Marshal(p)
	}
	return json.Marshal(struct {
		plain
		AvgLo *float64 `json:"average_ci_lo"`
		AvgHi *float64 `json:"average_ci_hi"`
	}{plain: p})
}

// SuiteOf computes the suite report of a run: each task's score with its
// interval, the reported number and the delta, and the suite average with a
// 95% bootstrap interval (resamples draws, 2000 when 0; deterministic for
// seed). The numbers come from SuiteAverage.
func SuiteOf(r *Run, s *suite.Suite, resamples int, seed uint64) (*SuiteReport, error) {
	if resamples <= 0 {
		resamples = 2000
	}
	rows, avg, err := SuiteAverage(r, s.Tasks, AverageOptions{Resamples: resamples, Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", s.Name, err)
	}
	rep := &SuiteReport{Suite: s.Name, Rows: rows, Average: avg.Value, AvgLo: avg.Lo, AvgHi: avg.Hi,
		Reported: s.ReportedAverage, Missing: avg.Missing, Partial: avg.Partial, Limit: r.Manifest.Config.Limit, Assumed: s.Assumed()}
	if avg.Value != nil && s.ReportedAverage != nil {
		d := *avg.Value - *s.ReportedAverage
		rep.Delta = &d
	}
	return rep, nil
}

// Print renders the report as a table. A task with nothing scored shows
// its status (missing, failed) instead of a number; an incomplete task's
// score is marked. The average is n/a unless every task is complete.
func (rep *SuiteReport) Print(w io.Writer) {
	tw := texttab.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "SUITE %s\tMETRIC\tSCORE\t95%% CI\tREPORTED\tDELTA\tN\n", rep.Suite)
	var partial, chance []string
	for _, r := range rep.Rows {
		score, ci, n := r.Status, "", ""
		if r.Score != nil {
			score = fmt.Sprintf("%.2f", *r.Score)
			ci = NoCI
			if r.HasCI() {
				ci = fmt.Sprintf("[%.2f, %.2f]", r.Lo, r.Hi)
			}
			n = fmt.Sprint(r.N)
			if r.Partial() {
				score += results.MarkPartial
				partial = append(partial, fmt.Sprintf("%s %d of %d", r.Task, r.Scored, r.Samples))
			}
			if r.AtChance() {
				score += results.MarkAtChance
				chance = append(chance, fmt.Sprintf("%s %.2f on %s", r.Task, 100*r.Chance.Baseline, r.Chance.Metric))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Task, r.Metric, score, ci, optF(r.Reported), optSigned(r.Delta), n)
	}
	reported := optF(rep.Reported)
	if rep.Reported != nil && len(rep.Assumed) > 0 {
		reported += fmt.Sprintf(" (%d of %d members assumed)", len(rep.Assumed), len(rep.Rows))
	}
	if rep.Average != nil {
		fmt.Fprintf(tw, "AVERAGE\t\t%.2f\t[%.2f, %.2f]\t%s\t%s\t\n", *rep.Average, rep.AvgLo, rep.AvgHi, reported, optSigned(rep.Delta))
	} else {
		fmt.Fprintf(tw, "AVERAGE\t\tn/a\t\t%s\t\t\n", reported)
	}
	tw.Flush()
	if len(partial) > 0 {
		fmt.Fprintln(w, results.PartialLegend(strings.Join(partial, ", ")))
	}
	if len(chance) > 0 {
		fmt.Fprintln(w, results.AtChanceLegend(strings.Join(chance, ", ")))
	}
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "The suite average needs every task present and complete; not complete: %s\n", strings.Join(rep.Missing, "; "))
	}
	if len(rep.Assumed) > 0 {
		fmt.Fprintf(w, "Assumed members (the published list does not name them): %s\n", strings.Join(rep.Assumed, ", "))
	}
	if rep.Limit > 0 {
		sw := rep.LimitSwitch
		if sw == "" {
			sw = "limit"
		}
		fmt.Fprintf(w, "Limited run (%s %d): the first %d samples of each task, not comparable with the published numbers\n", sw, rep.Limit, rep.Limit)
	}
}

func optF(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", *x)
}

func optSigned(x *float64) string {
	if x == nil {
		return "-"
	}
	return fmt.Sprintf("%+.2f", *x)
}
