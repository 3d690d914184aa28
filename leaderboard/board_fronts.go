package leaderboard

// measure is a cost or speed a run's score is plotted against. The plots,
// the Markdown's fronts and the JSON report all take their measures from
// measures, so they cannot disagree on which runs a front holds.
type measure struct {
	key           string // the JSON report's name: decode_tps, peak_mb, energy_j
	name          string // in sentences: "decode speed"
	title, xlabel string // the plot's
	unit          string
	higher        bool // a higher value is better (speed)
	dec           int  // decimals to print the value with
	// optional measures are plotted only when some run has them.
	optional bool
	x        func(r *BoardRow) float64 // 0 when not measured
}

var measures = []measure{
	{key: "decode_tps", name: "decode speed", title: "Score vs decode speed", xlabel: "decode tok/s (median over the run's tasks)",
		unit: "tok/s", higher: true, dec: 1, x: func(r *BoardRow) float64 { return r.DecodeTPS }},
	{key: "peak_mb", name: "peak memory", title: "Score vs peak memory", xlabel: "peak resident-memory increase (MB)",
		unit: "MB", dec: 0, x: func(r *BoardRow) float64 { return r.PeakMB }},
	{key: "energy_j", name: "energy", title: "Score vs energy", xlabel: "energy per inference (J, from the run's bench.json)",
		unit: "J", dec: 2, optional: true, x: func(r *BoardRow) float64 {
			if r.Energy == nil {
				return 0
			}
			return r.Energy.Joules
		}},
}

// measured is m's value for r and whether r has it (a value above 0; not
// NaN).
func (m measure) measured(r *BoardRow) (float64, bool) {
	x := m.x(r)
	return x, x > 0
}

// Front is the Pareto front of a score (the suite average, or one task's)
// against one measure: the runs no other run beats on both, as the page's
// plots draw it (the Markdown lists the suite average's).
type Front struct {
	Measure        string // decode_tps, peak_mb or energy_j
	Name, Unit     string
	HigherIsBetter bool
	Decimals       int
	// Plotted counts the measured rows with the score and the
	// measurement, Skipped those with the score but without it.
	Plotted, Skipped int
	// Runs are the rows on the front, by the measurement, ascending.
	Runs []FrontRun
}

// FrontRun is a row on a front.
type FrontRun struct {
	Row   int // index in Board.Rows
	Label string
	Score float64 // the row's score (×100)
	Value float64 // the measurement
}

// scoreOf is the score a plot puts on its y axis (×100); ok is false when
// the row has none and is not plotted.
type scoreOf func(r *BoardRow) (y float64, ok bool)

// averageScore is a row's suite average.
func averageScore(r *BoardRow) (float64, bool) {
	if r.Mean == nil {
		return 0, false
	}
	return *r.Mean, true
}

// cellScore is a row's score on task: scored or partial (over the scored
// samples), not failed, missing or reported.
func cellScore(task string) scoreOf {
	return func(r *BoardRow) (float64, bool) {
		c := r.Cells[task]
		if c.State != CellScored && c.State != CellPartial {
			return 0, false
		}
		return c.Value, true
	}
}

// Fronts are the Pareto fronts of the suite average against decode speed,
// peak memory and, when some run has it, energy per inference. Reference
// rows and rows without an average are not on any.
func (b *Board) Fronts() []Front { return b.fronts(averageScore) }

// TaskFronts are the Pareto fronts of the score on task, as the page's
// plots of that task draw them.
func (b *Board) TaskFronts(task string) []Front { return b.fronts(cellScore(task)) }

// fronts are the Pareto fronts of score against each measure.
func (b *Board) fronts(score scoreOf) []Front {
	var out []Front
	for _, m := range measures {
		f := Front{Measure: m.key, Name: m.name, Unit: m.unit, HigherIsBetter: m.higher, Decimals: m.dec}
		var pts []plotPoint
		var rows []int
		for i := range b.Rows {
			r := &b.Rows[i]
			if r.Reference {
				continue
			}
			y, ok := score(r)
			if !ok {
				continue
			}
			x, ok := m.measured(r)
			if !ok {
				f.Skipped++
				continue
			}
			pts = append(pts, plotPoint{X: x, Y: y, Label: r.Label})
			rows = append(rows, i)
		}
		if m.optional && len(pts) == 0 {
			continue
		}
		f.Plotted = len(pts)
		for _, i := range pareto(pts, m.higher) {
			f.Runs = append(f.Runs, FrontRun{Row: rows[i], Label: pts[i].Label, Score: pts[i].Y, Value: pts[i].X})
		}
		out = append(out, f)
	}
	return out
}
