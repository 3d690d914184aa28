package leaderboard

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/results"
)

// The page's style and script, inlined into every page (no network).
var (
	//go:embed board.css
	boardCSS string
	//go:embed board_cards.css
	cardsCSS string
	//go:embed board.js
	boardJS string
	//go:embed board.html.tmpl
	boardPage string
)

// HTML renders the board as one self-contained page (no network access):
// the table with its columns grouped by capability (cards on a phone),
// sortable; plots of score against decode speed, peak memory and, where
// measured, energy, each with its Pareto front; and a drill-down per run
// (identity, every task's numbers and breakdown, problems).
func (b *Board) HTML() ([]byte, error) {
	p := b.page()
	var buf bytes.Buffer
	if err := boardTmpl().Execute(&buf, p); err != nil {
		return nil, fmt.Errorf("leaderboard: render html: %w", err)
	}
	return buf.Bytes(), nil
}

type pageView struct {
	B        *Board
	CSS      template.CSS
	CardsCSS template.CSS
	JS       template.JS
	// CardWidth is the window width (px) below which the table becomes
	// cards: the width at which every task column still gets
	// minTaskColumn px, and at least a phone's.
	CardWidth int
	Groups    []groupView
	Cols      []colView
	Rows      []rowView
	HasEnergy bool
	Measured  int
	Figures   []figureView
	Marks     []string
	// VerdictNote explains the verdict badges.
	VerdictNote string
}

type groupView struct {
	Capability string
	Span       int
}

type colView struct {
	Task, Capability string
	Index            int // column index in body rows
	GroupStart       bool
	Name             template.HTML // task name with break opportunities
}

type rowView struct {
	*BoardRow
	Anchor   string
	Cells    []cellView
	Class    string
	Badges   []badge
	DirShort string
	Details  *runDetails
}

type badge struct{ Class, Text, Title string }

type cellView struct {
	Cell
	Task, Capability string
	GroupStart       bool
	// Lead marks the group's first cell with something to show (phones
	// hide missing cells and caption the group there).
	Lead      bool
	Href      string
	SortValue string
	Title     string
	Best      bool
}

type figureView struct {
	Key, Label string
	Hidden     bool
	Plots      []plotView
}

type plotView struct {
	Title string
	scatterResult
	// Narrow is the same plot laid out for a phone's width.
	Narrow    scatterResult
	Unit      string
	Decimals  int
	Skipped   int // runs with a score but without the measurement
	LowerNote string
}

// page builds the view of the board.
func (b *Board) page() *pageView {
	p := &pageView{B: b, CSS: template.CSS(boardCSS), CardsCSS: template.CSS(cardsCSS), JS: template.JS(boardJS), VerdictNote: VerdictModeNote}
	col := 3
	for _, g := range b.Groups {
		p.Groups = append(p.Groups, groupView{Capability: g.Capability, Span: len(g.Tasks)})
		for i, t := range g.Tasks {
			p.Cols = append(p.Cols, colView{Task: t, Capability: g.Capability, Index: col, GroupStart: i == 0, Name: breakable(t)})
			col++
		}
	}
	for _, r := range b.Rows {
		if r.Energy != nil {
			p.HasEnergy = true
		}
		if !r.Reference {
			p.Measured++
		}
	}
	effCols := 2
	if p.HasEnergy {
		effCols = 3
	}
	p.CardWidth = max(phoneWidth, tableWidth(len(b.Tasks), len(b.Groups), effCols))
	// The best measured score of each column, when the column has a
	// worse one.
	best, worst := map[string]float64{}, map[string]float64{}
	for _, r := range b.Rows {
		for t, c := range r.Cells {
			if r.Reference || !c.HasScore() {
				continue
			}
			if v, ok := best[t]; !ok || c.Value > v {
				best[t] = c.Value
			}
			if v, ok := worst[t]; !ok || c.Value < v {
				worst[t] = c.Value
			}
		}
	}
	for i := range b.Rows {
		r := &b.Rows[i]
		rv := rowView{BoardRow: r, Anchor: fmt.Sprintf("run-%d", i+1)}
		if r.Dir != "" {
			rv.DirShort = shortDir(r.Dir)
		}
		switch {
		case r.Reference:
			rv.Class = "reference"
			rv.Badges = append(rv.Badges, badge{"b-ref", "reported", "published numbers from the suite file, not measured here" + sourceNote(r.Source)})
		case r.Failed():
			rv.Class = "failed"
			rv.Badges = append(rv.Badges, badge{"b-fail", "failed", strings.Join(r.Problems, "\n")})
		case r.IsPartial():
			rv.Class = "partial"
			rv.Badges = append(rv.Badges, badge{"b-partial", "partial", strings.Join(r.Problems, "\n")})
		}
		if r.Limit > 0 {
			rv.Badges = append(rv.Badges, badge{"b-limit", fmt.Sprintf("limit %d", r.Limit), fmt.Sprintf("--limit %d: the first %d samples of each task, not the full benchmark", r.Limit, r.Limit)})
		}
		if r.Shard != "" {
			rv.Badges = append(rv.Badges, badge{"b-limit", "shard " + r.Shard, "one shard of the samples"})
		}
		if r.VerdictMode != "" {
			rv.Badges = append(rv.Badges, badge{"b-verdict", r.VerdictMode + " verdicts", VerdictModeNote})
		}
		led := map[string]bool{}
		for _, c := range p.Cols {
			cell := r.Cells[c.Task]
			cv := cellView{Cell: cell, Task: c.Task, Capability: c.Capability, GroupStart: c.GroupStart,
				Href: "#" + taskAnchor(rv.Anchor, c.Task)}
			if cell.State == CellMissing && b.Notes[c.Task] == "" {
				cv.Href = "#" + rv.Anchor // nothing to drill into
			}
			if cell.HasScore() {
				cv.SortValue = fmt.Sprintf("%.4f", cell.Value)
				cv.Best = !r.Reference && cell.Value == best[c.Task] && best[c.Task] > worst[c.Task]
			}
			if cell.State != CellMissing && !led[c.Capability] {
				led[c.Capability], cv.Lead = true, true
			}
			cv.Title = cellTitle(c.Task, cell)
			rv.Cells = append(rv.Cells, cv)
		}
		rv.Details = details(b, r, rv.Anchor)
		p.Rows = append(p.Rows, rv)
	}
	p.Figures = b.figures(p.Rows)
	return p
}

// The table's geometry (px, as board.css sets it): the page's side
// padding, the fixed columns, the gap before each group, and the narrowest
// task column that still shows a score and its interval on two lines.
const (
	pagePadding   = 2 * 24
	fixedColumns  = 34 + 220 + 70 // rank, run, average
	effColumn     = 56
	groupGap      = 6
	minTaskColumn = 60
	phoneWidth    = 760
)

// tableWidth is the narrowest window that shows the table without
// squeezing a task column below minTaskColumn.
func tableWidth(tasks, groups, effCols int) int {
	return pagePadding + fixedColumns + effCols*effColumn + (groups+1)*groupGap + tasks*minTaskColumn
}

func sourceNote(s string) string {
	if s == "" {
		return ""
	}
	return "; source: " + s
}

// breakable lets a task name wrap after underscores.
func breakable(t string) template.HTML {
	return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(t), "_", "_<wbr>"))
}

// shortDir is the last two elements of a directory path.
func shortDir(d string) string {
	d = filepath.Clean(d)
	parent := filepath.Base(filepath.Dir(d))
	if parent == "." || parent == "/" || parent == "" {
		return filepath.Base(d)
	}
	return parent + "/" + filepath.Base(d)
}

var anchorUnsafe = lazyre.New(`[^A-Za-z0-9_-]+`)

func taskAnchor(run, task string) string { return run + "-" + anchorUnsafe.ReplaceAllString(task, "-") }

func cellTitle(task string, c Cell) string {
	switch c.State {
	case CellMissing:
		return task + ": not in this run"
	case CellFailed:
		return fmt.Sprintf("%s: failed, no sample scored of %d%s", task, c.Samples, firstError(c.FirstError))
	case CellReported:
		return fmt.Sprintf("%s: %.2f as published (not measured here)", task, c.Value)
	}
	ci := "no interval"
	if c.HasCI() {
		ci = fmt.Sprintf("95%% CI [%.2f, %.2f]", c.Lo, c.Hi)
	}
	t := fmt.Sprintf("%s: %s %.2f, %s, n=%d", task, c.Metric, c.Value, ci, c.N)
	if c.State == CellPartial {
		t += fmt.Sprintf("; only %d of %d samples scored%s", c.Scored, c.Samples, firstError(c.FirstError))
	}
	return t + chanceNote(c)
}

// figures are the plot sets: one for the suite average and one per task;
// the page shows one set at a time.
func (b *Board) figures(rows []rowView) []figureView {
	type key struct {
		key, label string
		y          scoreOf
		task       string // "" for the suite average
	}
	keys := []key{{"avg", "suite average", averageScore, ""}}
	for _, t := range b.Tasks {
		keys = append(keys, key{"task-" + anchorUnsafe.ReplaceAllString(t, "-"), t, cellScore(t), t})
	}
	var figs []figureView
	shown := false
	for _, k := range keys {
		f := figureView{Key: k.key, Label: k.label}
		scored := 0
		for _, m := range measures {
			var pts []plotPoint
			skipped := 0
			for i := range rows {
				r := rows[i].BoardRow
				if r.Reference {
					continue
				}
				y, ok := k.y(r)
				if !ok {
					continue
				}
				hollow := k.task != "" && r.Cells[k.task].State == CellPartial
				x, measured := m.measured(r)
				if !measured {
					skipped++
					continue
				}
				pts = append(pts, plotPoint{X: x, Y: y, Label: r.Label, Anchor: rows[i].Anchor, Hollow: hollow})
			}
			if m.optional && len(pts) == 0 {
				continue // energy only where measured
			}
			scored += len(pts)
			ylabel := "score ×100 (" + k.label + ")"
			spec := scatterSpec{Title: m.title, XLabel: m.xlabel, YLabel: ylabel, XHigherIsBetter: m.higher, XUnit: m.unit, XDecimals: m.dec}
			f.Plots = append(f.Plots, plotView{Title: m.title, Unit: m.unit, Decimals: m.dec, Skipped: skipped,
				scatterResult: scatter(spec, wideGeometry, pts), Narrow: scatter(spec, narrowGeometry, pts)})
		}
		if !shown && scored > 0 {
			shown = true
		} else {
			f.Hidden = true
		}
		figs = append(figs, f)
	}
	if !shown && len(figs) > 0 {
		figs[0].Hidden = false
	}
	return figs
}

// runDetails is a row's drill-down.
type runDetails struct {
	Facts  [][2]string
	Tasks  []taskDetail
	Extras []string // tasks of the run that are not columns of the board
}

type taskDetail struct {
	// Show is false for a task the run lacks and the suite says nothing
	// about: it gets a table row but no details.
	Show                     bool
	Anchor, Task, Capability string
	Cell                     Cell
	Note                     string // the suite's note
	Summary                  *results.TaskSummary
	Delta                    *float64
	Breakdown                *breakdownView
}

type breakdownView struct {
	Metrics []string
	Rows    []breakdownRow
}

type breakdownRow struct {
	Group  string
	Values []string
	N      string
}

func details(b *Board, r *BoardRow, anchor string) *runDetails {
	d := &runDetails{}
	fact := func(k, v string) {
		if v != "" {
			d.Facts = append(d.Facts, [2]string{k, v})
		}
	}
	if r.Reference {
		fact("Source", r.Source)
		fact("Suite", b.Suite)
		fact("Measured", "no: these are the numbers the suite file reports as published")
		if r.Mean != nil {
			fact("Average", fmt.Sprintf("%.2f (published)", *r.Mean))
		}
	}
	if run := r.Run; run != nil {
		m := run.Manifest
		fact("Directory", r.Dir)
		fact("Model", modelFacts(m))
		fact("Runtime", runtimeFacts(m))
		if r.Quant.Name != "" {
			fact("Quantisation", r.Quant.Name+" (from "+r.Quant.From+")")
		} else if m.Config.Runtime != "replay" && m.Config.Runtime != "openai" {
			fact("Quantisation", "unknown (not in the model file's header or name)")
		}
		fact("Generation", genFacts(m))
		fact("Samples", sampleFacts(r, m, b.LimitSwitch))
		fact("When", whenFacts(m))
		fact("Host", hostFacts(m))
		fact("Efficiency", effFacts(r))
		fact("Command", strings.Join(m.Command, " "))
		cols := map[string]bool{}
		for _, t := range b.Tasks {
			cols[t] = true
		}
		for _, t := range run.Tasks() {
			if !cols[t] {
				d.Extras = append(d.Extras, t)
			}
		}
	}
	for _, g := range b.Groups {
		for _, t := range g.Tasks {
			c := r.Cells[t]
			td := taskDetail{Anchor: taskAnchor(anchor, t), Task: t, Capability: g.Capability, Cell: c, Note: b.Notes[t],
				Show: c.State != CellMissing || b.Notes[t] != ""}
			if r.Run != nil {
				td.Summary = r.Run.Summary.Tasks[t]
			}
			if c.Reported != nil && (c.State == CellScored || c.State == CellPartial) {
				v := c.Value - *c.Reported
				td.Delta = &v
			}
			if td.Summary != nil && len(td.Summary.Breakdown) > 0 {
				td.Breakdown = breakdown(td.Summary)
			}
			d.Tasks = append(d.Tasks, td)
		}
	}
	return d
}

func modelFacts(m *results.Manifest) string {
	s := m.Config.Model.Path
	var files []string
	for f, h := range m.Config.Model.Files {
		if len(h) > 12 {
			h = h[:12] + "…"
		}
		files = append(files, f+" sha256 "+h)
	}
	sort.Strings(files)
	if len(files) > 0 && len(files) <= 3 {
		s += " (" + strings.Join(files, ", ") + ")"
	} else if len(files) > 3 {
		s += fmt.Sprintf(" (%d files hashed)", len(files))
	}
	return s
}

func runtimeFacts(m *results.Manifest) string {
	parts := []string{m.Config.Runtime}
	if v := m.Runtime.Version; v != "" {
		parts = append(parts, v)
	}
	var keys []string
	for k := range m.Runtime.Settings {
		switch k {
		case "chat_template_sha256", "predictions", "sha256":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %v", k, m.Runtime.Settings[k]))
	}
	return strings.Join(parts, " · ")
}

func genFacts(m *results.Manifest) string {
	g := m.Config.Generation
	var parts []string
	if g.Temperature == 0 {
		parts = append(parts, "greedy")
	} else {
		parts = append(parts, fmt.Sprintf("temperature %g", g.Temperature))
		if g.TopP > 0 {
			parts = append(parts, fmt.Sprintf("top-p %g", g.TopP))
		}
	}
	if g.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("max %d new tokens", g.MaxTokens))
	} else {
		parts = append(parts, "each task's token limit")
	}
	if m.Config.Chat {
		parts = append(parts, "chat template")
	} else {
		parts = append(parts, "raw prompts")
	}
	if ct := m.Config.ChatTemplate; ct != nil && ct.Source != "" {
		parts = append(parts, "template "+ct.Source)
	}
	if m.Config.NumFewshot >= 0 {
		parts = append(parts, fmt.Sprintf("%d-shot", m.Config.NumFewshot))
	}
	if m.Config.SamplesPerTask > 1 {
		parts = append(parts, fmt.Sprintf("%d responses per sample", m.Config.SamplesPerTask))
	}
	parts = append(parts, fmt.Sprintf("seed %d", m.Config.Seed))
	return strings.Join(parts, " · ")
}

func sampleFacts(r *BoardRow, m *results.Manifest, limitSwitch string) string {
	s := fmt.Sprintf("%d selected, %d scored", r.Samples, r.Scored)
	if r.Errors > 0 {
		s += fmt.Sprintf(", %d failed", r.Errors)
	}
	if m.Config.Limit > 0 {
		if limitSwitch == "" {
			limitSwitch = "limit"
		}
		s += fmt.Sprintf(" · %s %d (the first %d of each task)", limitSwitch, m.Config.Limit, m.Config.Limit)
	} else {
		s += " · every sample of each task"
	}
	if r.Shard != "" {
		s += " · shard " + r.Shard
	}
	return s
}

func whenFacts(m *results.Manifest) string {
	if m.Start.IsZero() {
		return ""
	}
	s := m.Start.UTC().Format("2006-01-02 15:04 MST")
	if m.End != nil {
		s += " → " + m.End.UTC().Format("2006-01-02 15:04 MST")
	}
	s += " · status " + m.Status
	if m.Resumes > 0 {
		s += fmt.Sprintf(" · resumed %d×", m.Resumes)
	}
	return s
}

func hostFacts(m *results.Manifest) string {
	h := m.Host
	if h.CPU == "" && h.Cores == 0 {
		return ""
	}
	s := fmt.Sprintf("%s, %d cores, %s/%s", h.CPU, h.Cores, h.OS, h.Arch)
	if h.LoadAvg > 0 {
		s += fmt.Sprintf(" · load average %.1f at the start", h.LoadAvg)
	}
	return s
}

func effFacts(r *BoardRow) string {
	var parts []string
	if r.DecodeTPS > 0 {
		parts = append(parts, fmt.Sprintf("decode %.1f tok/s (median of the tasks' medians)", r.DecodeTPS))
	}
	if r.PeakMB > 0 {
		parts = append(parts, fmt.Sprintf("peak RSS +%.0f MB", r.PeakMB))
	}
	if e := r.Energy; e != nil {
		s := fmt.Sprintf("%.2f ± %.2f J per inference (%s, %s, %d rounds", e.Joules, e.SD, e.Test, e.Source, e.Rounds)
		if e.BatteryPctPer100 != nil {
			s += fmt.Sprintf("; %.2f%% of the battery per 100", *e.BatteryPctPer100)
		}
		parts = append(parts, s+"; "+e.File+")")
	}
	parts = append(parts, r.Cost.facts()...) // board_cost.go
	return strings.Join(parts, " · ")
}

// breakdown tabulates a task's per-group numbers (subjects, sub-tasks):
// every value the groups report, and n. A value named by one of the task's
// metrics, or by the end of one (IFEval's strict_acc of
// prompt_level_strict_acc), is a rate and shown ×100; any other (the
// number of subjects in a category) is a count and shown as it is.
func breakdown(ts *results.TaskSummary) *breakdownView {
	rate := func(key string) bool {
		for m := range ts.Metrics {
			if m == key || strings.HasSuffix(m, "_"+key) {
				return true
			}
		}
		return false
	}
	keys := map[string]bool{}
	var groups []string
	for g, vals := range ts.Breakdown {
		groups = append(groups, g)
		for k := range vals {
			if k != "n" {
				keys[k] = true
			}
		}
	}
	sort.Strings(groups)
	v := &breakdownView{}
	for k := range keys {
		v.Metrics = append(v.Metrics, k)
	}
	// Rates first, then counts, each by name.
	sort.Slice(v.Metrics, func(i, j int) bool {
		if ri, rj := rate(v.Metrics[i]), rate(v.Metrics[j]); ri != rj {
			return ri
		}
		return v.Metrics[i] < v.Metrics[j]
	})
	for _, g := range groups {
		row := breakdownRow{Group: g}
		for _, k := range v.Metrics {
			x, ok := ts.Breakdown[g][k]
			switch {
			case !ok:
				row.Values = append(row.Values, "–")
			case rate(k):
				row.Values = append(row.Values, fmt.Sprintf("%.1f", 100*x))
			default:
				row.Values = append(row.Values, strconv.FormatFloat(x, 'f', -1, 64))
			}
		}
		if n, ok := ts.Breakdown[g]["n"]; ok {
			row.N = fmt.Sprintf("%.0f", n)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

func f2(x float64) string { return fmt.Sprintf("%.2f", x) }

// boardTmpl is parsed on first use, not at the start of every command.
var boardTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("board").Funcs(template.FuncMap{
		"f2":         f2,
		"decision":   decisionHTML,
		"chanceNote": chanceNote,
		"opt":        optNum,
		"speed":      speed,
		"signed": func(x *float64) string {
			if x == nil {
				return ""
			}
			return fmt.Sprintf("%+.2f", *x)
		},
		"deref": func(x *float64) float64 { return *x },
		"pct":   func(x float64) string { return fmt.Sprintf("%.1f%%", math.Max(0, math.Min(100, x))) },
		"add":   func(a, b int) int { return a + b },
		"fmtx":  func(x float64, dec int) string { return fmt.Sprintf("%.*f", dec, x) },
	}).Parse(boardPage))
})
