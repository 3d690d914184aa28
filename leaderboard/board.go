package leaderboard

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/stats"
	"github.com/pocketeval/pocketeval/suite"
)

// Board is a runs × tasks leaderboard: each measured run's score on every
// task (×100, with its 95% interval), its suite average, speed, memory and
// energy, and the published reference rows of a suite. Columns are grouped
// by the capability their task measures.
type Board struct {
	Title string
	// Suite is the suite whose tasks are the columns, "" when the columns
	// are the union of the runs' tasks.
	Suite string
	// Groups are the column groups in display order; Tasks lists their
	// tasks, group by group.
	Groups []Group
	Tasks  []string
	// Notes are the suite's notes on its tasks (task → note).
	Notes map[string]string
	// Assumed lists the suite's members whose place in it is assumed,
	// not published (suite.Suite.Assumed): its reported average may be
	// over other benchmarks.
	Assumed []string
	// Rows are the runs and reference rows, best suite average first
	// (rows without an average follow; see NewBoard).
	Rows []BoardRow
	// LimitSwitch is BoardOptions.LimitSwitch.
	LimitSwitch string
}

// Group is a run of columns that measure one capability.
type Group struct {
	Capability string
	Tasks      []string
}

// Capability names a capability and the tasks that measure it
// (registry.Families gives the built-in ones).
type Capability struct {
	Name  string
	Tasks []string
}

// OtherCapability heads the columns of tasks no Capability lists (task
// files).
const OtherCapability = "other"

// BoardOptions configure NewBoard. The zero value builds a board over the
// union of the runs' tasks, in one group.
type BoardOptions struct {
	Title string
	// Suite, when set, makes its tasks the columns (in its order within
	// each group), its average the board's average, and its reported
	// numbers a reference row.
	Suite *suite.Suite
	// LimitSwitch names the sample limit in a run's facts the way the
	// caller does (the command line: "--limit"); "" reads "limit".
	LimitSwitch string
	// Capabilities group the columns; a task none lists goes to
	// OtherCapability.
	Capabilities []Capability
}

// BoardRow is one run, or one reference row of published numbers.
type BoardRow struct {
	// Label is unique on the board: Name, with the directory's base name
	// when two rows share a Name.
	Label string
	// Name is the model file's base name (the directory's for replays).
	Name string
	Dir  string
	// Run is the loaded result directory; nil for a reference row.
	Run *rundir.Run
	// Reference marks published numbers drawn from the suite file: they
	// were reported, not measured here. Source says where.
	Reference bool
	Source    string

	Runtime        string // llamacpp, mnn, openai, replay
	RuntimeVersion string
	Quant          Quant
	// QuantOf relates a quantised run to the widest-format run of the
	// same model on the board (board_quant.go); nil for others.
	QuantOf *QuantRelative
	Date    time.Time // the run's start
	Limit   int       // --limit, 0 for none
	Shard   string    // "i/N" for a shard, else ""
	// VerdictMode is how the run judged its code tasks on the board
	// ("official", "isolated", "mixed" when they differ), "" when it has
	// none: the same completions score differently in the two modes.
	VerdictMode string
	Status      string // the manifest's status
	// Samples, Scored and Errors add up the board's tasks.
	Samples, Scored, Errors int

	Cells map[string]Cell // task → cell; every board task has one

	// Mean is the suite average (rundir.SuiteAverage) over the board's tasks; nil
	// unless it is defined. Partial is the mean over the scored tasks
	// (Present of them), shown only as such.
	Mean    *float64
	Partial *float64
	Present int
	// Missing says why Mean is nil: each task that is not complete, with
	// the reason (rundir.SuiteAverage's Missing); for a reference row, each task
	// the suite file reports no number for.
	Missing []string
	// Rank is the 1-based position among measured rows with a Mean; 0
	// otherwise.
	Rank int

	// DecodeTPS is the median over tasks of each task's median decode
	// tok/s; 0 when unknown.
	DecodeTPS float64
	// PeakMB is the peak resident-memory increase of an in-process run; 0
	// when not measured.
	PeakMB float64
	// Energy is the energy per inference in the run's bench.json; nil when
	// none was measured.
	Energy *Energy
	// Cost is the time and energy per correct answer and the latency on
	// real prompts (board_cost.go); nil when nothing was measured.
	Cost *Cost

	// Problems say what is wrong with the run, one line each (failed and
	// partial tasks with their first error, an unfinished status).
	Problems []string
}

// Failed reports whether a task of the row has no scored sample, or the
// run failed.
func (r *BoardRow) Failed() bool {
	if r.Status == results.StatusFailed {
		return true
	}
	for _, c := range r.Cells {
		if c.State == CellFailed {
			return true
		}
	}
	return false
}

// IsPartial reports whether some samples of the row failed or were never
// run (and no task failed outright).
func (r *BoardRow) IsPartial() bool {
	if r.Reference || r.Failed() {
		return false
	}
	if r.Status != "" && r.Status != results.StatusComplete {
		return true
	}
	for _, c := range r.Cells {
		if c.State == CellPartial {
			return true
		}
	}
	return false
}

// CellState says what a cell holds.
type CellState string

// Cell states.
const (
	CellScored   CellState = "scored"   // every selected sample scored
	CellPartial  CellState = "partial"  // scored, but some samples failed or are missing
	CellFailed   CellState = "failed"   // in the run, no sample scored
	CellMissing  CellState = "missing"  // not in the run
	CellReported CellState = "reported" // a published number (reference rows)
)

// Cell is one task of one row. Value, Lo and Hi are ×100; they are set for
// CellScored, CellPartial and (Value only) CellReported.
type Cell struct {
	State  CellState
	Metric string
	Value  float64
	Lo, Hi float64
	N      int // samples behind the metric
	// Samples selected, Scored and Errors, from the run's summary.
	Samples, Scored, Errors int
	FirstError              string
	// Reported is the suite's published number for the task, if any.
	Reported *float64
	// Chance is the task's primary metric against random answers, when
	// the task knows its baseline (nil otherwise).
	Chance *results.Chance
}

// AtChance reports whether the cell's task scored no better than random
// answers (the board greys it out).
func (c Cell) AtChance() bool { return c.Chance != nil && !c.Chance.Above && c.State != CellReported }

// HasCI reports whether the score has an interval: a task-level aggregate
// without a standard error (a macro average over one group) has none, and
// is never shown as [x, x].
func (c Cell) HasCI() bool { return c.Hi > c.Lo }

// CI formats the interval with prec decimals: "lo–hi", or "no CI".
func (c Cell) CI(prec int) string {
	if !c.HasCI() {
		return rundir.NoCI
	}
	return fmt.Sprintf("%.*f–%.*f", prec, c.Lo, prec, c.Hi)
}

// HasScore reports whether the cell shows a number.
func (c Cell) HasScore() bool {
	return c.State == CellScored || c.State == CellPartial || c.State == CellReported
}

// NewBoard builds a board from runs. Each row's cells and average come
// from rundir.SuiteAverage over the board's tasks, the same numbers `suite` and
// `gate` show. Rows with an average come first, best first; the others
// follow by the number of tasks they scored: an average over the tasks a
// run happens to have is never used to rank it.
func NewBoard(rs []*rundir.Run, o BoardOptions) (*Board, error) {
	b := &Board{Title: o.Title, Notes: map[string]string{}, LimitSwitch: o.LimitSwitch}
	var entries []suite.Entry
	if o.Suite != nil {
		b.Suite = o.Suite.Name
		b.Assumed = o.Suite.Assumed()
		entries = append(entries, o.Suite.Tasks...)
		for _, e := range o.Suite.Tasks {
			if e.Note != "" {
				b.Notes[e.Task] = e.Note
			}
		}
	} else {
		seen := map[string]bool{}
		for _, r := range rs {
			for _, t := range r.Tasks() {
				if !seen[t] {
					seen[t] = true
					entries = append(entries, suite.Entry{Task: t})
				}
			}
		}
	}
	b.Groups, entries = group(entries, o.Capabilities)
	for _, g := range b.Groups {
		b.Tasks = append(b.Tasks, g.Tasks...)
	}
	for _, r := range rs {
		row, err := runRow(r, entries)
		if err != nil {
			return nil, fmt.Errorf("leaderboard: %w", err)
		}
		b.Rows = append(b.Rows, row)
	}
	if o.Suite != nil {
		if ref, ok := referenceRow(o.Suite, entries); ok {
			b.Rows = append(b.Rows, ref)
		}
	}
	rank(b.Rows)
	label(b.Rows)
	relateQuants(b.Rows)
	return b, nil
}

// group orders entries by capability and returns the groups.
func group(entries []suite.Entry, caps []Capability) ([]Group, []suite.Entry) {
	capOf := map[string]string{}
	for _, c := range caps {
		for _, t := range c.Tasks {
			if _, ok := capOf[t]; !ok {
				capOf[t] = c.Name
			}
		}
	}
	byCap := map[string][]suite.Entry{}
	for _, e := range entries {
		c, ok := capOf[e.Task]
		if !ok {
			c = OtherCapability
		}
		byCap[c] = append(byCap[c], e)
	}
	var groups []Group
	var ordered []suite.Entry
	add := func(name string) {
		es := byCap[name]
		if len(es) == 0 {
			return
		}
		delete(byCap, name)
		g := Group{Capability: name}
		for _, e := range es {
			g.Tasks = append(g.Tasks, e.Task)
		}
		groups = append(groups, g)
		ordered = append(ordered, es...)
	}
	for _, c := range caps {
		add(c.Name)
	}
	add(OtherCapability)
	return groups, ordered
}

// runRow builds a measured run's row.
func runRow(r *rundir.Run, entries []suite.Entry) (BoardRow, error) {
	m := r.Manifest
	row := BoardRow{
		Name: r.Name, Dir: r.Dir, Run: r,
		Runtime: m.Config.Runtime, RuntimeVersion: m.Runtime.Version,
		Quant: QuantOf(m), Date: m.Start, Limit: m.Config.Limit, Status: m.Status,
		Cells: map[string]Cell{},
	}
	if m.Config.Shard.Active() {
		row.Shard = m.Config.Shard.String()
	}
	scores, avg, err := rundir.SuiteAverage(r, entries, rundir.AverageOptions{})
	if err != nil {
		return row, err
	}
	for _, sc := range scores {
		c := Cell{State: CellMissing, Metric: sc.Metric, Reported: sc.Reported}
		if ts, ok := r.Summary.Tasks[sc.Task]; ok {
			c.Samples, c.Scored, c.Errors, c.FirstError = ts.Samples, ts.Scored, ts.Errors, ts.FirstError
			c.Chance = ts.Chance
			row.Samples += ts.Samples
			row.Scored += ts.Scored
			row.Errors += ts.Errors
			switch {
			case sc.Score == nil && ts.Status() == results.TaskMissing:
				// In the run, but nothing scored and nothing failed (an
				// interrupted run that never reached it): missing, as
				// suite and gate call it.
				row.Problems = append(row.Problems, fmt.Sprintf("%s: missing, none of %d samples measured", sc.Task, ts.Samples))
			case sc.Score == nil:
				c.State = CellFailed
				row.Problems = append(row.Problems, fmt.Sprintf("%s: failed, no sample scored of %d%s", sc.Task, ts.Samples, firstError(ts.FirstError)))
			case ts.Errors > 0 || ts.Scored < ts.Samples:
				c.State = CellPartial
				row.Problems = append(row.Problems, fmt.Sprintf("%s: %d of %d samples scored%s", sc.Task, ts.Scored, ts.Samples, firstError(ts.FirstError)))
			default:
				c.State = CellScored
			}
			if sc.Score != nil {
				c.Value, c.Lo, c.Hi, c.N = *sc.Score, sc.Lo, sc.Hi, sc.N
			}
		}
		row.Cells[sc.Task] = c
	}
	row.Mean, row.Partial, row.Present, row.Missing = avg.Value, avg.Partial, avg.Scored, avg.Missing
	if m.Status != results.StatusComplete {
		row.Problems = append([]string{fmt.Sprintf("run status %q: the run did not finish", m.Status)}, row.Problems...)
	}
	var tps []float64
	for _, e := range entries {
		if ts, ok := r.Summary.Tasks[e.Task]; ok && ts.Timing != nil && ts.Timing.DecodeTPSMedian > 0 {
			tps = append(tps, ts.Timing.DecodeTPSMedian)
		}
	}
	row.DecodeTPS = stats.Median(tps)
	if res := m.Resources; res != nil && res.InProcess {
		row.PeakMB = res.PeakIncreaseMB
	}
	row.Energy = runEnergyOf(r)
	row.Cost = runCostOf(r, entries, row.Energy)
	row.VerdictMode = verdictModeOf(r, entries)
	return row, nil
}

// VerdictModeNote says what a row's verdict mode means.
const VerdictModeNote = "how a run judged its code tasks: official (the harnesses' own rule, as published numbers were measured) or isolated " +
	"(the model's code in its own sandboxed process, which no program can game); the same completions can score differently in the two"

// assumedCount is "k of n members assumed".
func (b *Board) assumedCount() string {
	return fmt.Sprintf("%d of %d members assumed", len(b.Assumed), len(b.Tasks))
}

// AssumedNote names the suite members whose place in the suite is
// assumed ("" when none).
func (b *Board) AssumedNote() string {
	if len(b.Assumed) == 0 {
		return ""
	}
	return fmt.Sprintf("Assumed members of %s (%s; the published list does not name them, so its reported average may be over other benchmarks): %s",
		b.Suite, b.assumedCount(), strings.Join(b.Assumed, ", "))
}

// verdictModeOf is how r judged the code tasks among entries: their one
// mode, "mixed", or "" when it ran none of them.
func verdictModeOf(r *rundir.Run, entries []suite.Entry) string {
	mode := ""
	for _, e := range entries {
		vm, ok := r.Manifest.CodeVerdictMode(e.Task)
		m := string(vm)
		switch {
		case !ok:
		case mode == "":
			mode = m
		case mode != m:
			return "mixed"
		}
	}
	return mode
}

func firstError(e string) string {
	if e == "" {
		return ""
	}
	return "; first error: " + e
}

// referenceRow is the suite's published numbers as a row, if it has any.
func referenceRow(s *suite.Suite, entries []suite.Entry) (BoardRow, bool) {
	row := BoardRow{Name: s.Model, Reference: true, Source: s.ReportedSource, Cells: map[string]Cell{}}
	if row.Name == "" {
		row.Name = s.Name + " (published)"
	}
	published := s.ReportedAverage != nil
	for _, e := range entries {
		c := Cell{State: CellMissing, Metric: e.Metric, Reported: e.Reported}
		if e.Reported != nil {
			c.State, c.Value = CellReported, *e.Reported
			published = true
			row.Present++
		} else {
			row.Missing = append(row.Missing, e.Task+" (not reported)")
		}
		row.Cells[e.Task] = c
	}
	row.Mean = s.ReportedAverage
	return row, published
}

// rank sorts rows: those with an average, best first; then the others by
// the number of tasks they scored; ties by name. Measured rows with an
// average get ranks.
func rank(rows []BoardRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if (a.Mean != nil) != (b.Mean != nil) {
			return a.Mean != nil
		}
		if a.Mean != nil && *a.Mean != *b.Mean {
			return *a.Mean > *b.Mean
		}
		if a.Present != b.Present {
			return a.Present > b.Present
		}
		if a.Reference != b.Reference {
			return b.Reference
		}
		return a.Name < b.Name
	})
	n := 0
	for i := range rows {
		if rows[i].Mean != nil && !rows[i].Reference {
			n++
			rows[i].Rank = n
		}
	}
}

// repoAt matches a source reference "owner/repo@version".
var repoAt = lazyre.New(`\S+/\S+@(\S+)`)

// label gives every row a unique label: its name, with the directory's
// base name when names repeat, and a counter as the last resort.
func label(rows []BoardRow) {
	count := map[string]int{}
	for _, r := range rows {
		count[r.Name]++
	}
	used := map[string]int{}
	for i := range rows {
		l := rows[i].Name
		if count[l] > 1 && rows[i].Dir != "" {
			l += " · " + filepath.Base(filepath.Clean(rows[i].Dir))
		}
		used[l]++
		if used[l] > 1 {
			l = fmt.Sprintf("%s #%d", l, used[l])
		}
		rows[i].Label = l
	}
}

// Identity is the short description of a row: runtime, quantisation,
// samples over the board's tasks, date. (The page shows --limit and shards
// as badges next to it.)
func (r *BoardRow) Identity() string { return strings.Join(r.IdentityParts(), " · ") }

// IdentityParts are Identity's parts, which the page keeps unbroken.
func (r *BoardRow) IdentityParts() []string {
	if r.Reference {
		return []string{"reported, not measured"}
	}
	parts := []string{r.RuntimeLabel()}
	if r.Quant.Name != "" {
		parts = append(parts, r.Quant.Name)
	}
	parts = append(parts, fmt.Sprintf("N %d", r.Samples))
	if !r.Date.IsZero() {
		parts = append(parts, r.Date.UTC().Format("2006-01-02"))
	}
	return parts
}

// RuntimeLabel is the runtime with its engine version: the version alone
// when it names the engine ("llama.cpp b6050"), else the runtime's name
// followed by it ("mnn 3.6.1"). A source reference "owner/repo@v0.4.0" is
// shortened to its version, and llama.cpp's "commit C, npm PKG@V" to
// "C (npm V)"; the drill-down has it whole.
func (r *BoardRow) RuntimeLabel() string {
	v := r.RuntimeVersion
	if head, pkg, ok := strings.Cut(v, ", npm "); ok {
		v = strings.Replace(head, "commit ", "", 1)
		if at := strings.LastIndex(pkg, "@"); at > 0 {
			v += " (npm " + pkg[at+1:] + ")"
		}
	}
	v = repoAt.ReplaceAllString(v, "$1")
	switch {
	case v == "":
		return r.Runtime
	case v[0] >= '0' && v[0] <= '9':
		return r.Runtime + " " + v
	}
	return v
}
