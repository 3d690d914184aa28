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

// Front is the Pareto front of the suite average against one measure: the
// runs no other run beats on both (the plots of the suite average draw it;
// the Markdown lists it).
type Front struct {
	Measure        string // decode_tps, peak_mb or energy_j
	Name, Unit     string
	HigherIsBetter bool
	Decimals       int
	// Plotted counts the measured rows with an average and the
	// measurement, Skipped those with an average but without it.
	Plotted, Skipped int
	// Runs are the rows on the front, by the measurement, ascending.
	Runs []FrontRun
}

// FrontRun is a row on a front.
type FrontRun struct {
	Row     int // index in Board.Rows
	Label   string
	Average float64 // the row's suite average (×100)
	Value   float64 // the measurement
}

// Fronts are the Pareto fronts of the suite average against decode speed,
// peak memory and, when some run has it, energy per inference. Reference
// rows and rows without an average are not on any.
func (b *Board) Fronts() []Front {
	var out []Front
	for _, m := range measures {
		f := Front{Measure: m.key, Name: m.name, Unit: m.unit, HigherIsBetter: m.higher, Decimals: m.dec}
		var pts []plotPoint
		var rows []int
		for i := range b.Rows {
			r := &b.Rows[i]
			if r.Reference || r.Mean == nil {
				continue
			}
			x, ok := m.measured(r)
			if !ok {
				f.Skipped++
				continue
			}
			pts = append(pts, plotPoint{X: x, Y: *r.Mean, Label: r.Label})
			rows = append(rows, i)
		}
		if m.optional && len(pts) == 0 {
			continue
		}
		f.Plotted = len(pts)
		for _, i := range pareto(pts, m.higher) {
			f.Runs = append(f.Runs, FrontRun{Row: rows[i], Label: pts[i].Label, Average: pts[i].Y, Value: pts[i].X})
		}
		out = append(out, f)
	}
	return out
}
