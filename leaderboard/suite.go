package leaderboard

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// SuiteSpec is what a suite report needs from a suite definition
// (evals/suite holds the definitions; this package does not import it).
type SuiteSpec struct {
	Name            string
	ReportedAverage *float64
	Tasks           []SuiteTaskSpec
}

// SuiteTaskSpec is one task of a SuiteSpec.
type SuiteTaskSpec struct {
	Task     string
	Metric   string   // "" = the task's primary metric
	Reported *float64 // published score ×100
	Note     string
}

// SuiteRow is one task of a suite report (scores ×100).
type SuiteRow struct {
	Task     string   `json:"task"`
	Metric   string   `json:"metric"`
	Score    *float64 `json:"score,omitempty"` // nil: not in the run
	Lo       float64  `json:"ci_lo"`
	Hi       float64  `json:"ci_hi"`
	N        int      `json:"n"`
	Reported *float64 `json:"reported,omitempty"`
	Delta    *float64 `json:"delta,omitempty"`
	Note     string   `json:"note,omitempty"`
}

// SuiteReport is a run's suite table and average.
type SuiteReport struct {
	Suite    string     `json:"suite"`
	Rows     []SuiteRow `json:"rows"`
	Average  *float64   `json:"average,omitempty"` // nil unless every task is present
	AvgLo    float64    `json:"average_ci_lo"`
	AvgHi    float64    `json:"average_ci_hi"`
	Reported *float64   `json:"reported_average,omitempty"`
	Delta    *float64   `json:"average_delta,omitempty"`
	Missing  []string   `json:"missing,omitempty"`
	Partial  *float64   `json:"partial_average,omitempty"` // over present tasks
}

// SuiteOf computes the suite report of a run: each task's metric ×100
// with its interval, the reported number and the delta, and the unweighted
// average with a 95% bootstrap interval (tasks resampled independently, each
// by its own samples; B resamples, deterministic for seed).
func SuiteOf(r *Run, s SuiteSpec, resamples int, seed uint64) (*SuiteReport, error) {
	if resamples <= 0 {
		resamples = 2000
	}
	rep := &SuiteReport{Suite: s.Name, Reported: s.ReportedAverage}
	type taskDraw struct {
		values []float64 // per-sample values of the metric
		mean   float64
		se     float64
		fixed  bool // aggregate-only: perturb by its stderr
		scale  float64
	}
	var draws []taskDraw
	for _, e := range s.Tasks {
		row := SuiteRow{Task: e.Task, Reported: e.Reported, Note: e.Note}
		ts, ok := r.Summary.Tasks[e.Task]
		if !ok {
			rep.Missing = append(rep.Missing, e.Task)
			rep.Rows = append(rep.Rows, row)
			continue
		}
		metric := e.Metric
		if metric == "" {
			metric = headline(ts)
		}
		row.Metric = metric
		m, ok := ts.Metrics[metric]
		if !ok {
			return nil, fmt.Errorf("suite %s: task %s has no metric %q in %s", s.Name, e.Task, metric, r.Dir)
		}
		v := 100 * m.Mean
		row.Score, row.Lo, row.Hi, row.N = &v, 100*m.Lo, 100*m.Hi, m.N
		if e.Reported != nil {
			d := v - *e.Reported
			row.Delta = &d
		}
		rep.Rows = append(rep.Rows, row)
		per, err := r.perSample(e.Task, metric)
		if err != nil {
			return nil, err
		}
		td := taskDraw{mean: m.Mean, se: m.Stderr}
		if len(per) > 0 && math.Abs(meanOf(per)-m.Mean) < 1e-9 {
			for _, k := range sortedKeys(per) {
				td.values = append(td.values, per[k])
			}
		} else {
			td.fixed = true
		}
		draws = append(draws, td)
	}
	if len(draws) > 0 {
		var sum float64
		for _, d := range draws {
			sum += d.mean
		}
		p := 100 * sum / float64(len(draws))
		rep.Partial = &p
	}
	if len(rep.Missing) == 0 && len(draws) > 0 {
		avg := *rep.Partial
		rep.Average = &avg
		rng := rand.New(rand.NewPCG(seed, 42))
		boots := make([]float64, resamples)
		for b := range boots {
			var s float64
			for _, d := range draws {
				if d.fixed {
					s += d.mean + d.se*rng.NormFloat64()
					continue
				}
				var t float64
				for range d.values {
					t += d.values[rng.IntN(len(d.values))]
				}
				s += t / float64(len(d.values))
			}
			boots[b] = 100 * s / float64(len(draws))
		}
		sort.Float64s(boots)
		rep.AvgLo, rep.AvgHi = stats.Percentile(boots, 0.025), stats.Percentile(boots, 0.975)
		if s.ReportedAverage != nil {
			d := avg - *s.ReportedAverage
			rep.Delta = &d
		}
	}
	return rep, nil
}

func meanOf(m map[results.Key]float64) float64 {
	if len(m) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range m {
		s += v
	}
	return s / float64(len(m))
}

// Print renders the report as a table.
func (rep *SuiteReport) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "SUITE %s\tMETRIC\tSCORE\t95%% CI\tREPORTED\tDELTA\tN\n", rep.Suite)
	for _, r := range rep.Rows {
		score, ci := "missing", ""
		if r.Score != nil {
			score = fmt.Sprintf("%.2f", *r.Score)
			ci = fmt.Sprintf("[%.2f, %.2f]", r.Lo, r.Hi)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\n", r.Task, r.Metric, score, ci, optF(r.Reported), optSigned(r.Delta), r.N)
	}
	if rep.Average != nil {
		fmt.Fprintf(tw, "AVERAGE\t\t%.2f\t[%.2f, %.2f]\t%s\t%s\t\n", *rep.Average, rep.AvgLo, rep.AvgHi, optF(rep.Reported), optSigned(rep.Delta))
	} else if rep.Partial != nil {
		fmt.Fprintf(tw, "AVERAGE\t\tn/a\t\t%s\t\t\n", optF(rep.Reported))
	}
	tw.Flush()
	if len(rep.Missing) > 0 {
		fmt.Fprintf(w, "The suite average needs every task; missing: %s (average of the %d present: %.2f)\n",
			strings.Join(rep.Missing, ", "), len(rep.Rows)-len(rep.Missing), derefOr(rep.Partial))
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

func derefOr(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return *x
}

// headline is the metric a benchmark publishes: the task's headline metric
// when its aggregator names one (macro averages), else the primary metric.
func headline(ts *results.TaskSummary) string {
	if ts.HeadlineMetric != "" {
		if _, ok := ts.Metrics[ts.HeadlineMetric]; ok {
			return ts.HeadlineMetric
		}
	}
	return ts.PrimaryMetric
}
