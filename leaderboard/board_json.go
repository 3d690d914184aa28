package leaderboard

import (
	"time"

	"github.com/pocketeval/pocketeval/results"
)

// BoardReport is the board as data, in the --json convention
// (docs/json.md): `leaderboard --json` writes it. It is built from the
// same Board as the HTML page and the Markdown, so the three show the
// same rows, numbers, marks and Pareto fronts. Scores are ×100; a number
// that was not measured is null, never 0.
type BoardReport struct {
	Title string `json:"title"`
	// Suite is the suite whose tasks are the columns; null when the
	// columns are the union of the runs' tasks.
	Suite *string `json:"suite"`
	// Tasks are the columns in display order, each with its capability
	// group.
	Tasks []ColumnReport `json:"tasks"`
	// AssumedMembers are the suite's members whose place in it is
	// assumed, not published (empty when none or no suite).
	AssumedMembers []string `json:"assumed_members"`
	// Rows are in the table's order: ranked runs best first, then the
	// others; a reference row among them.
	Rows []RowReport `json:"rows"`
	// Fronts are the Pareto fronts of the suite average (Board.Fronts);
	// each task's fronts are marked in the rows' tasks (on_front).
	Fronts []FrontReport `json:"fronts"`
}

// ColumnReport is one task column.
type ColumnReport struct {
	Task       string `json:"task"`
	Capability string `json:"capability"`
	// Note is the suite's note on the task, "" when none.
	Note string `json:"note"`
}

// RowReport is one row: a measured run, or the suite's published numbers
// (Reference, with null identity and measurements).
type RowReport struct {
	// Rank is the row's place among the measured rows with an average;
	// null for the others.
	Rank  *int   `json:"rank"`
	Label string `json:"label"`
	Name  string `json:"name"`
	// Dir is the result directory as given; null for a reference row.
	Dir *string `json:"dir"`
	// Reference marks published numbers from the suite file: reported,
	// not measured. Source is the suite's reported_source.
	Reference bool    `json:"reference"`
	Source    *string `json:"source"`
	// State is the row's mark: complete, partial (some samples failed or
	// were not run, or the run did not finish), failed (a task has no
	// scored sample, or the run failed) or reported.
	State string `json:"state"`

	// Runtime is llamacpp, mnn, openai or replay; RuntimeVersion the
	// engine's version the manifest records, null when none.
	Runtime        *string `json:"runtime"`
	RuntimeVersion *string `json:"runtime_version"`
	// Quant is the model's weight format (null when unknown), QuantFrom
	// where it was read.
	Quant     *string `json:"quant"`
	QuantFrom *string `json:"quant_from"`
	// QuantOf relates a quantised run to the run of the same model in the
	// widest format on the board; null for others.
	QuantOf *QuantOfReport `json:"quant_of"`
	// Samples selected, Scored and Errors add up the board's tasks (N in
	// the table).
	Samples *int `json:"samples"`
	Scored  *int `json:"scored"`
	Errors  *int `json:"errors"`
	// Limit is the run's --limit, 0 for none.
	Limit *int `json:"limit"`
	// Shard is "i/N" for a shard of a run.
	Shard *string `json:"shard"`
	// VerdictMode is how the run judged its code tasks: official,
	// isolated, or mixed; null when it has none on the board.
	VerdictMode *string `json:"verdict_mode"`
	// Date is when the run started (RFC 3339, UTC); Status the manifest's
	// status.
	Date   *string `json:"date"`
	Status *string `json:"status"`

	// Average is the suite average (rundir.SuiteAverage, the rule and number of
	// suite and gate; the published one on a reference row), null unless
	// every task is present and complete; Missing then says why.
	// PartialAverage is the mean over the tasks with a score (TasksScored
	// of them), never used to rank.
	Average        *float64 `json:"average"`
	Missing        []string `json:"missing"`
	PartialAverage *float64 `json:"partial_average"`
	TasksScored    int      `json:"tasks_scored"`

	// DecodeTPS, PeakMB and Energy are null when not measured.
	DecodeTPS *float64      `json:"decode_tps"`
	PeakMB    *float64      `json:"peak_mb"`
	Energy    *EnergyReport `json:"energy"`
	// Cost is the time and energy per correct answer and the latency on
	// real prompts; null when none was measured (board_cost.go).
	Cost *CostReport `json:"cost"`
	// OnFront names the fronts of the suite average (Fronts' measures)
	// the row is on.
	OnFront []string `json:"on_front"`

	Tasks []CellReport `json:"tasks"`
	// Problems say what is wrong with the run, one line each.
	Problems []string `json:"problems"`
}

// QuantOfReport names a quantised row's reference row (its label and
// weight format) and the row's average as a percentage of the
// reference's, null unless both are defined.
type QuantOfReport struct {
	Reference     string   `json:"reference"`
	Quant         string   `json:"quant"`
	RelativeScore *float64 `json:"relative_score"`
}

// CellReport is one task of one row.
type CellReport struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	// Status is complete, incomplete (scored over some of the samples),
	// failed (in the run, no sample scored), missing (not in the run) or
	// reported (a published number).
	Status string `json:"status"`
	// Score and its 95% interval (×100); null when nothing was scored,
	// the interval null too when the score has none.
	Score *float64 `json:"score"`
	CILo  *float64 `json:"ci_lo"`
	CIHi  *float64 `json:"ci_hi"`
	N     *int     `json:"n"`
	// Samples selected, Scored and Errors; null on a reference row and
	// for a task the run lacks.
	Samples    *int    `json:"samples"`
	Scored     *int    `json:"scored"`
	Errors     *int    `json:"errors"`
	FirstError *string `json:"first_error"`
	// Reported is the suite's published number, Delta the score minus it.
	Reported *float64 `json:"reported"`
	Delta    *float64 `json:"delta"`
	// Chance is what random answers score on the task's primary metric
	// (×100) and AboveChance whether the score is significantly above it
	// (exact one-sided test at 5%); absent when the task has no baseline.
	Chance      *float64 `json:"chance,omitempty"`
	AboveChance *bool    `json:"above_chance,omitempty"`
	// OnFront names the fronts of the task's plots (TaskFronts) the row
	// is on.
	OnFront []string `json:"on_front"`
}

// EnergyReport is a run's energy per inference (its bench.json).
type EnergyReport struct {
	Joules           float64  `json:"joules"`
	SD               float64  `json:"sd"`
	BatteryPctPer100 *float64 `json:"battery_pct_per_100"`
	Test             string   `json:"test"`
	Source           string   `json:"source"`
	Rounds           int      `json:"rounds"`
	File             string   `json:"file"`
}

// FrontReport is a Pareto front of the suite average.
type FrontReport struct {
	Measure        string `json:"measure"`
	Unit           string `json:"unit"`
	HigherIsBetter bool   `json:"higher_is_better"`
	// Plotted runs have an average and the measurement; Skipped have an
	// average but not the measurement.
	Plotted int              `json:"plotted"`
	Skipped int              `json:"skipped"`
	Runs    []FrontRunReport `json:"runs"`
}

// FrontRunReport is a row on a front.
type FrontRunReport struct {
	Label   string  `json:"label"`
	Average float64 `json:"average"`
	Value   float64 `json:"value"`
}

// Report returns the board as data for `leaderboard --json`.
func (b *Board) Report() BoardReport {
	rep := BoardReport{Title: b.Title, Tasks: []ColumnReport{}, AssumedMembers: append([]string{}, b.Assumed...), Rows: []RowReport{}, Fronts: []FrontReport{}}
	if b.Suite != "" {
		rep.Suite = ptr(b.Suite)
	}
	for _, g := range b.Groups {
		for _, t := range g.Tasks {
			rep.Tasks = append(rep.Tasks, ColumnReport{Task: t, Capability: g.Capability, Note: b.Notes[t]})
		}
	}
	onFront := make([][]string, len(b.Rows))
	for _, f := range b.Fronts() {
		fr := FrontReport{Measure: f.Measure, Unit: f.Unit, HigherIsBetter: f.HigherIsBetter, Plotted: f.Plotted, Skipped: f.Skipped,
			Runs: []FrontRunReport{}}
		for _, r := range f.Runs {
			fr.Runs = append(fr.Runs, FrontRunReport{Label: r.Label, Average: r.Score, Value: r.Value})
			onFront[r.Row] = append(onFront[r.Row], f.Measure)
		}
		rep.Fronts = append(rep.Fronts, fr)
	}
	// The fronts of each task's plots, by row and task.
	taskOnFront := make([]map[string][]string, len(b.Rows))
	for _, t := range b.Tasks {
		for _, f := range b.TaskFronts(t) {
			for _, r := range f.Runs {
				if taskOnFront[r.Row] == nil {
					taskOnFront[r.Row] = map[string][]string{}
				}
				taskOnFront[r.Row][t] = append(taskOnFront[r.Row][t], f.Measure)
			}
		}
	}
	for i := range b.Rows {
		row := b.rowReport(&b.Rows[i])
		if onFront[i] != nil {
			row.OnFront = onFront[i]
		}
		for j := range row.Tasks {
			if fs := taskOnFront[i][row.Tasks[j].Task]; fs != nil {
				row.Tasks[j].OnFront = fs
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep
}

// rowReport is r as data.
func (b *Board) rowReport(r *BoardRow) RowReport {
	out := RowReport{Label: r.Label, Name: r.Name, Reference: r.Reference,
		Average: r.Mean, Missing: nonNil(r.Missing), PartialAverage: r.Partial, TasksScored: r.Present,
		OnFront: []string{}, Tasks: []CellReport{}, Problems: nonNil(r.Problems)}
	if r.Rank > 0 {
		out.Rank = ptr(r.Rank)
	}
	switch {
	case r.Reference:
		out.State = string(CellReported)
		if r.Source != "" {
			out.Source = ptr(r.Source)
		}
	case r.Failed():
		out.State = results.TaskFailed
	case r.IsPartial():
		out.State = "partial"
	default:
		out.State = results.TaskComplete
	}
	if !r.Reference {
		out.Dir, out.Runtime = ptr(r.Dir), ptr(r.Runtime)
		if r.RuntimeVersion != "" {
			out.RuntimeVersion = ptr(r.RuntimeVersion)
		}
		if r.Quant.Name != "" {
			out.Quant, out.QuantFrom = ptr(r.Quant.Name), ptr(r.Quant.From)
		}
		if q := r.QuantOf; q != nil {
			out.QuantOf = &QuantOfReport{Reference: q.Reference, Quant: q.Quant, RelativeScore: q.Pct}
		}
		out.Samples, out.Scored, out.Errors, out.Limit = ptr(r.Samples), ptr(r.Scored), ptr(r.Errors), ptr(r.Limit)
		if r.Shard != "" {
			out.Shard = ptr(r.Shard)
		}
		if r.VerdictMode != "" {
			out.VerdictMode = ptr(r.VerdictMode)
		}
		if !r.Date.IsZero() {
			out.Date = ptr(r.Date.UTC().Format(time.RFC3339))
		}
		out.Status = ptr(r.Status)
		out.DecodeTPS, out.PeakMB = positive(r.DecodeTPS), positive(r.PeakMB)
		if e := r.Energy; e != nil {
			out.Energy = &EnergyReport{Joules: e.Joules, SD: e.SD, BatteryPctPer100: e.BatteryPctPer100,
				Test: e.Test, Source: e.Source, Rounds: e.Rounds, File: e.File}
		}
		out.Cost = costReport(r.Cost)
	}
	for _, t := range b.Tasks {
		out.Tasks = append(out.Tasks, cellReport(t, r.Cells[t]))
	}
	return out
}

// cellStatus is the --json convention's word for each cell state.
var cellStatus = map[CellState]string{
	CellScored:   results.TaskComplete,
	CellPartial:  results.TaskIncomplete,
	CellFailed:   results.TaskFailed,
	CellMissing:  results.TaskMissing,
	CellReported: string(CellReported),
}

// cellReport is task's cell c as data.
func cellReport(task string, c Cell) CellReport {
	out := CellReport{Task: task, Metric: c.Metric, Status: cellStatus[c.State], Reported: c.Reported, OnFront: []string{}}
	if out.Status == "" {
		out.Status = results.TaskMissing
	}
	if c.HasScore() {
		out.Score = ptr(c.Value)
	}
	if c.State == CellScored || c.State == CellPartial {
		if c.HasCI() {
			out.CILo, out.CIHi = ptr(c.Lo), ptr(c.Hi)
		}
		out.N = ptr(c.N)
		if c.Reported != nil {
			out.Delta = ptr(c.Value - *c.Reported)
		}
		if c.Chance != nil {
			out.Chance, out.AboveChance = ptr(100*c.Chance.Baseline), ptr(c.Chance.Above)
		}
	}
	if c.State != CellMissing && c.State != CellReported {
		out.Samples, out.Scored, out.Errors = ptr(c.Samples), ptr(c.Scored), ptr(c.Errors)
		if c.FirstError != "" {
			out.FirstError = ptr(c.FirstError)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// positive is x when it was measured (above 0), else nil.
func positive(x float64) *float64 {
	if x > 0 {
		return &x
	}
	return nil
}

// nonNil is s, or an empty list: the JSON has [] where there is nothing.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
