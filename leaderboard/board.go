package leaderboard

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/evals/suite"
	"github.com/pocketeval/pocketeval/stats"
)

// Board is a models × tasks leaderboard built from several runs.
type Board struct {
	Title string
	Tasks []string // columns, in first-seen order
	Rows  []BoardRow
	// HasEnergy is true when a row has an energy measurement (its run's
	// bench.json); the energy column is shown only then.
	HasEnergy bool
}

// BoardRow is one run (model).
type BoardRow struct {
	Name    string
	Dir     string
	Runtime string
	Cells   map[string]Cell // task → cell
	// Mean is the suite average (SuiteAverage) over Board.Tasks; nil
	// when a task has no score (then MeanPartial is over the scored ones,
	// Present of them).
	Mean        *float64
	MeanPartial float64
	Present     int
	// DecodeTPS is the median over tasks of each task's median decode
	// tok/s; 0 when unknown.
	DecodeTPS float64
	// PeakMB is the peak resident-memory increase for in-process runs.
	PeakMB float64
	// EnergyJ is the energy per inference from the run's bench.json
	// (0 when not measured).
	EnergyJ float64
}

// Cell is one score (×100) with its interval.
type Cell struct {
	Metric string
	Value  float64
	Lo, Hi float64
	N      int
}

// NewBoard builds a board from runs. Each row's cells and mean come from
// SuiteAverage over the board's tasks, the same numbers `suite` and `gate`
// show.
func NewBoard(title string, runs []*Run) (*Board, error) {
	b := &Board{Title: title}
	seen := map[string]bool{}
	var entries []suite.Entry
	for _, r := range runs {
		for _, t := range r.Tasks() {
			if !seen[t] {
				seen[t] = true
				b.Tasks = append(b.Tasks, t)
				entries = append(entries, suite.Entry{Task: t})
			}
		}
	}
	for _, r := range runs {
		row := BoardRow{Name: r.Name, Dir: r.Dir, Runtime: r.Manifest.Config.Runtime, Cells: map[string]Cell{}}
		scores, avg, err := SuiteAverage(r, entries, AverageOptions{})
		if err != nil {
			return nil, fmt.Errorf("leaderboard: %w", err)
		}
		for _, sc := range scores {
			if sc.Score != nil {
				row.Cells[sc.Task] = Cell{Metric: sc.Metric, Value: *sc.Score, Lo: sc.Lo, Hi: sc.Hi, N: sc.N}
			}
		}
		row.Mean, row.Present = avg.Value, avg.Scored
		if avg.Partial != nil {
			row.MeanPartial = *avg.Partial
		}
		var tps []float64
		for _, t := range b.Tasks {
			if ts, ok := r.Summary.Tasks[t]; ok && ts.Timing != nil && ts.Timing.DecodeTPSMedian > 0 {
				tps = append(tps, ts.Timing.DecodeTPSMedian)
			}
		}
		row.DecodeTPS = stats.Median(tps)
		if res := r.Manifest.Resources; res != nil && res.InProcess {
			row.PeakMB = res.PeakIncreaseMB
		}
		row.EnergyJ = runEnergy(r)
		b.HasEnergy = b.HasEnergy || row.EnergyJ > 0
		b.Rows = append(b.Rows, row)
	}
	sort.SliceStable(b.Rows, func(i, j int) bool { return b.Rows[i].MeanPartial > b.Rows[j].MeanPartial })
	return b, nil
}

// Markdown renders the board as a Markdown table.
func (b *Board) Markdown() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# %s\n\n| model | runtime | mean |", b.Title)
	for _, t := range b.Tasks {
		fmt.Fprintf(&s, " %s |", t)
	}
	s.WriteString(" decode tok/s | peak MB |")
	if b.HasEnergy {
		s.WriteString(" J/inference |")
	}
	s.WriteString("\n|---|---|---:|")
	for range b.Tasks {
		s.WriteString("---:|")
	}
	s.WriteString("---:|---:|")
	if b.HasEnergy {
		s.WriteString("---:|")
	}
	s.WriteString("\n")
	for _, r := range b.Rows {
		mean := "n/a"
		if r.Mean != nil {
			mean = fmt.Sprintf("%.2f", *r.Mean)
		}
		fmt.Fprintf(&s, "| %s | %s | %s |", r.Name, r.Runtime, mean)
		for _, t := range b.Tasks {
			if c, ok := r.Cells[t]; ok {
				fmt.Fprintf(&s, " %.2f [%.1f, %.1f] |", c.Value, c.Lo, c.Hi)
			} else {
				s.WriteString(" – |")
			}
		}
		fmt.Fprintf(&s, " %s | %s |", optNum(r.DecodeTPS, 1), optNum(r.PeakMB, 0))
		if b.HasEnergy {
			fmt.Fprintf(&s, " %s |", optNum(r.EnergyJ, 2))
		}
		s.WriteString("\n")
	}
	s.WriteString("\nScores ×100 with 95% intervals; mean = unweighted mean of each task's headline metric (n/a when a task has no score).\n")
	return s.String()
}

func optNum(x float64, prec int) string {
	if x <= 0 || math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// point is one dot of a scatter plot.
type point struct {
	X, Y  float64
	Label string
}

// scatter renders an SVG scatter plot (self-contained markup).
func scatter(title, xLabel, yLabel string, pts []point) template.HTML {
	const w, h, ml, mr, mt, mb = 520.0, 340.0, 56.0, 20.0, 30.0, 48.0
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`, w, h, w, h, template.HTMLEscapeString(title))
	fmt.Fprintf(&s, `<text x="%g" y="18" class="title">%s</text>`, ml, template.HTMLEscapeString(title))
	fmt.Fprintf(&s, `<line x1="%g" y1="%g" x2="%g" y2="%g" class="axis"/><line x1="%g" y1="%g" x2="%g" y2="%g" class="axis"/>`,
		ml, h-mb, w-mr, h-mb, ml, mt, ml, h-mb)
	fmt.Fprintf(&s, `<text x="%g" y="%g" class="label" text-anchor="middle">%s</text>`, (ml+w-mr)/2, h-10, template.HTMLEscapeString(xLabel))
	fmt.Fprintf(&s, `<text x="14" y="%g" class="label" text-anchor="middle" transform="rotate(-90 14 %g)">%s</text>`, (mt+h-mb)/2, (mt+h-mb)/2, template.HTMLEscapeString(yLabel))
	if len(pts) == 0 {
		fmt.Fprintf(&s, `<text x="%g" y="%g" class="empty" text-anchor="middle">no runs with this measurement</text></svg>`, (ml+w-mr)/2, (mt+h-mb)/2)
		return template.HTML(s.String())
	}
	minX, maxX, minY, maxY := pts[0].X, pts[0].X, pts[0].Y, pts[0].Y
	for _, p := range pts {
		minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
		minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
	}
	padX := math.Max((maxX-minX)*0.1, math.Max(maxX*0.05, 1))
	padY := math.Max((maxY-minY)*0.1, 1)
	minX, maxX = math.Max(0, minX-padX), maxX+padX
	minY, maxY = math.Max(0, minY-padY), math.Min(100, maxY+padY)
	if maxY <= minY {
		maxY = minY + 1
	}
	sx := func(x float64) float64 { return ml + (x-minX)/(maxX-minX)*(w-ml-mr) }
	sy := func(y float64) float64 { return h - mb - (y-minY)/(maxY-minY)*(h-mt-mb) }
	for i := 0; i <= 4; i++ {
		xv := minX + float64(i)*(maxX-minX)/4
		yv := minY + float64(i)*(maxY-minY)/4
		fmt.Fprintf(&s, `<text x="%.1f" y="%g" class="tick" text-anchor="middle">%.0f</text>`, sx(xv), h-mb+16, xv)
		fmt.Fprintf(&s, `<text x="%g" y="%.1f" class="tick" text-anchor="end">%.1f</text>`, ml-6, sy(yv)+4, yv)
	}
	for _, p := range pts {
		fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="5" class="dot"><title>%s: %.2f, %.1f</title></circle>`, sx(p.X), sy(p.Y), template.HTMLEscapeString(p.Label), p.Y, p.X)
		// Labels right of the dot, or left of it near the right edge.
		lx, anchor := sx(p.X)+7, "start"
		if sx(p.X) > (ml+w-mr)/2 {
			lx, anchor = sx(p.X)-7, "end"
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%.1f" class="pl" text-anchor="%s">%s</text>`, lx, sy(p.Y)-7, anchor, template.HTMLEscapeString(p.Label))
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// HTML renders the board as one self-contained HTML page (no network):
// a sortable table and SVG plots of score vs decode speed and vs peak
// memory.
func (b *Board) HTML() ([]byte, error) {
	var speed, mem []point
	for _, r := range b.Rows {
		y := r.MeanPartial
		if r.DecodeTPS > 0 {
			speed = append(speed, point{X: r.DecodeTPS, Y: y, Label: r.Name})
		}
		if r.PeakMB > 0 {
			mem = append(mem, point{X: r.PeakMB, Y: y, Label: r.Name})
		}
	}
	data := map[string]any{
		"B":         b,
		"SpeedPlot": scatter("Score vs decode speed", "decode tok/s (median)", "mean score", speed),
		"MemPlot":   scatter("Score vs peak memory", "peak RSS increase (MB)", "mean score", mem),
	}
	var buf bytes.Buffer
	if err := boardTmpl.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var boardTmpl = template.Must(template.New("board").Funcs(template.FuncMap{
	"f2":  func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"f1":  func(x float64) string { return fmt.Sprintf("%.1f", x) },
	"opt": optNum,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.B.Title}}</title>
<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2230}
h1{font-size:20px}
table{border-collapse:collapse;margin:12px 0}
th,td{border-bottom:1px solid #dde;padding:6px 10px;text-align:right;white-space:nowrap}
th{cursor:pointer;background:#f3f4f8;user-select:none}
th.sorted-asc::after{content:" ▲"} th.sorted-desc::after{content:" ▼"}
td:first-child,th:first-child{text-align:left}
.ci{color:#778;font-size:12px}
.plots{display:flex;flex-wrap:wrap;gap:24px}
.plot .axis{stroke:#445;stroke-width:1}
.plot .dot{fill:#3a6fd8;opacity:.85}
.plot .title{font-weight:600;font-size:13px}
.plot .label,.plot .tick,.plot .pl{font-size:11px;fill:#445}
.plot .empty{font-size:12px;fill:#999}
.note{color:#667;font-size:12px}
</style></head>
<body>
<h1>{{.B.Title}}</h1>
<table id="board">
<thead><tr><th data-type="text">model</th><th data-type="text">runtime</th><th data-type="num">mean</th>{{range .B.Tasks}}<th data-type="num">{{.}}</th>{{end}}<th data-type="num">decode tok/s</th><th data-type="num">peak MB</th>{{if .B.HasEnergy}}<th data-type="num">J/inference</th>{{end}}</tr></thead>
<tbody>
{{range $r := .B.Rows}}<tr>
<td title="{{$r.Dir}}">{{$r.Name}}</td><td>{{$r.Runtime}}</td>
<td data-v="{{if $r.Mean}}{{f2 $r.MeanPartial}}{{else}}-1{{end}}">{{if $r.Mean}}{{f2 $r.MeanPartial}}{{else}}n/a <span class="ci">({{f2 $r.MeanPartial}} over {{$r.Present}})</span>{{end}}</td>
{{range $t := $.B.Tasks}}{{$c := index $r.Cells $t}}{{if $c.Metric}}<td data-v="{{f2 $c.Value}}" title="{{$c.Metric}}, n={{$c.N}}">{{f2 $c.Value}} <span class="ci">[{{f1 $c.Lo}}, {{f1 $c.Hi}}]</span></td>{{else}}<td data-v="-1">–</td>{{end}}
{{end}}<td data-v="{{$r.DecodeTPS}}">{{opt $r.DecodeTPS 1}}</td><td data-v="{{$r.PeakMB}}">{{opt $r.PeakMB 0}}</td>{{if $.B.HasEnergy}}<td data-v="{{$r.EnergyJ}}">{{opt $r.EnergyJ 2}}</td>{{end}}
</tr>
{{end}}</tbody></table>
<p class="note">Scores ×100 (the headline metric of each task, as published) with 95% intervals. Mean = unweighted mean over the tasks; n/a when a run has no score for a task. Click a header to sort.</p>
<div class="plots">{{.SpeedPlot}}{{.MemPlot}}</div>
<script>
(function(){
  var table=document.getElementById("board");
  var heads=table.tHead.rows[0].cells;
  function key(td,type){return type==="num"?parseFloat(td.getAttribute("data-v")||td.textContent)||0:td.textContent.toLowerCase();}
  Array.prototype.forEach.call(heads,function(th,i){
    th.addEventListener("click",function(){
      var asc=!th.classList.contains("sorted-asc");
      Array.prototype.forEach.call(heads,function(h){h.classList.remove("sorted-asc","sorted-desc");});
      th.classList.add(asc?"sorted-asc":"sorted-desc");
      var rows=Array.prototype.slice.call(table.tBodies[0].rows);
      var type=th.getAttribute("data-type");
      rows.sort(function(a,b){var x=key(a.cells[i],type),y=key(b.cells[i],type);return (x<y?-1:x>y?1:0)*(asc?1:-1);});
      rows.forEach(function(r){table.tBodies[0].appendChild(r);});
    });
  });
  document.body.setAttribute("data-ready","1");
})();
</script>
</body></html>
`))
