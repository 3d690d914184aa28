package leaderboard

import (
	"fmt"
	"strconv"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/suite"
)

// Cost is what a run spent per correct answer over the board's tasks.
// Correct answers are counted as the sum of the per-sample scores of each
// task's primary metric (the expected number of correct answers; a task
// whose per-sample scores leave [0, 1] is not an accuracy and is left
// out).
type Cost struct {
	// Correct is that sum over Samples scored samples.
	Correct float64
	Samples int
	// MSPerCorrect is the model time of the scored samples that recorded
	// one (each response's Timings.Total, TimedSamples of them) divided
	// by the correct answers among those same samples; nil without timings
	// or without a correct answer.
	MSPerCorrect *float64
	TimedSamples int
	// JPerCorrect is the run's energy per inference (its bench.json)
	// divided by the share of correct answers: the joules one correct
	// answer costs when every sample costs one bench inference. Nil
	// without an energy measurement or a correct answer.
	JPerCorrect *float64
	// Latency is the bench.json's latency on a task's real prompts
	// (bench --prompts-from), nil when it has none (or several).
	Latency *bench.Latency
	// LatencyFile is the report it came from.
	LatencyFile string
}

// runCostOf computes the row's Cost; nil when there is nothing to show.
func runCostOf(r *rundir.Run, entries []suite.Entry, e *Energy) *Cost {
	c := &Cost{}
	var timedMS, timedCorrect float64
	for _, en := range entries {
		ts, ok := r.Summary.Tasks[en.Task]
		if !ok {
			continue
		}
		recs, err := r.Records(en.Task)
		if err != nil {
			continue
		}
		var correct, tCorrect, tMS float64
		var n, timed int
		accuracy := true
		for _, rec := range recs {
			v, ok := rec.Scores[ts.PrimaryMetric]
			if rec.Error != "" || !ok {
				continue
			}
			if v < 0 || v > 1 {
				accuracy = false
				break
			}
			correct += v
			n++
			if t := rec.Timings; t != nil && t.Total > 0 {
				tMS += t.Total.Seconds() * 1000
				tCorrect += v
				timed++
			}
		}
		if !accuracy {
			continue
		}
		c.Correct += correct
		c.Samples += n
		timedMS += tMS
		timedCorrect += tCorrect
		c.TimedSamples += timed
	}
	if timedCorrect > 0 {
		v := timedMS / timedCorrect
		c.MSPerCorrect = &v
	}
	if e != nil && c.Correct > 0 {
		v := e.Joules * float64(c.Samples) / c.Correct
		c.JPerCorrect = &v
	}
	if r.Bench != nil {
		var found []*bench.Latency
		for i := range r.Bench.Report.Rows {
			if l := r.Bench.Report.Rows[i].Latency; l != nil {
				found = append(found, l)
			}
		}
		if len(found) == 1 {
			c.Latency, c.LatencyFile = found[0], r.Bench.Path
		}
	}
	if c.MSPerCorrect == nil && c.JPerCorrect == nil && c.Latency == nil {
		return nil
	}
	return c
}

// costColumns are the Markdown columns of the rows' costs: only those some
// row has.
type costColumns struct{ ms, joules, latency bool }

func costColumnsOf(rows []BoardRow) costColumns {
	var c costColumns
	for _, r := range rows {
		if r.Cost == nil {
			continue
		}
		c.ms = c.ms || r.Cost.MSPerCorrect != nil
		c.joules = c.joules || r.Cost.JPerCorrect != nil
		c.latency = c.latency || r.Cost.Latency != nil
	}
	return c
}

func (c costColumns) header() (names, align string) {
	if c.ms {
		names, align = names+" ms/correct |", align+"---:|"
	}
	if c.joules {
		names, align = names+" J/correct |", align+"---:|"
	}
	if c.latency {
		names, align = names+" TTFT p50 ms | e2e p90 ms |", align+"---:|---:|"
	}
	return names, align
}

func (c costColumns) cells(cost *Cost) string {
	var s string
	num := func(v *float64, prec int) string {
		if v == nil {
			return " – |"
		}
		return " " + formatFloat(*v, prec) + " |"
	}
	if cost == nil {
		cost = &Cost{}
	}
	if c.ms {
		s += num(cost.MSPerCorrect, 0)
	}
	if c.joules {
		s += num(cost.JPerCorrect, 2)
	}
	if c.latency {
		if l := cost.Latency; l != nil {
			ttft := " – |"
			if l.TTFT != nil {
				ttft = " " + bench.FormatQuantile(l.TTFT.P50) + " |"
			}
			s += ttft + " " + bench.FormatQuantile(l.E2E.P90) + " |"
		} else {
			s += " – | – |"
		}
	}
	return s
}

func formatFloat(v float64, prec int) string {
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// CostReport is a row's Cost in the --json report.
type CostReport struct {
	// MSPerCorrect and JPerCorrect are null when not measured.
	MSPerCorrect *float64 `json:"ms_per_correct"`
	JPerCorrect  *float64 `json:"j_per_correct"`
	Correct      float64  `json:"correct"`
	Samples      int      `json:"samples"`
	TimedSamples int      `json:"timed_samples"`
	// Latency is bench --prompts-from's, null when the run has none.
	Latency     *bench.Latency `json:"latency"`
	LatencyFile string         `json:"latency_file,omitempty"`
}

func costReport(c *Cost) *CostReport {
	if c == nil {
		return nil
	}
	return &CostReport{MSPerCorrect: c.MSPerCorrect, JPerCorrect: c.JPerCorrect, Correct: c.Correct, Samples: c.Samples,
		TimedSamples: c.TimedSamples, Latency: c.Latency, LatencyFile: c.LatencyFile}
}

// facts describes the cost for the page's drill-down (nil for a nil c).
func (c *Cost) facts() []string {
	if c == nil {
		return nil
	}
	var out []string
	if c.MSPerCorrect != nil {
		out = append(out, fmt.Sprintf("%s ms of model time per correct answer (%.1f correct of %d samples; %d timed)", formatFloat(*c.MSPerCorrect, 0), c.Correct, c.Samples, c.TimedSamples))
	}
	if c.JPerCorrect != nil {
		out = append(out, fmt.Sprintf("%.2f J per correct answer (J per inference ÷ the share correct)", *c.JPerCorrect))
	}
	if l := c.Latency; l != nil {
		s := fmt.Sprintf("on %d %s prompts: end to end p50 %s, p90 %s ms", l.Prompts, l.Task, bench.FormatQuantile(l.E2E.P50), bench.FormatQuantile(l.E2E.P90))
		if l.TTFT != nil {
			s += fmt.Sprintf("; first token p50 %s ms", bench.FormatQuantile(l.TTFT.P50))
		}
		out = append(out, s+" ("+c.LatencyFile+")")
	}
	return out
}
