package leaderboard

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
)

// plotPoint is one run on a scatter plot.
type plotPoint struct {
	X, Y   float64
	Label  string
	Anchor string // the run's drill-down id
	Hollow bool   // the score has failed samples behind it
}

// axis is a linear axis with ticks at round values, or a logarithmic one
// with ticks at 1, 2 and 5 × 10^k.
type axis struct {
	Min, Max float64
	Step     float64 // linear axes
	Ticks    []float64
	Log      bool
}

// pos is where v falls on the axis, from 0 (Min) to 1 (Max).
func (a axis) pos(v float64) float64 {
	if a.Log {
		return (math.Log10(v) - math.Log10(a.Min)) / (math.Log10(a.Max) - math.Log10(a.Min))
	}
	return (v - a.Min) / (a.Max - a.Min)
}

// label formats a tick: with the step's decimals on a linear axis; on a
// logarithmic one as an integer, thousands as "k" ("2k", "10k").
func (a axis) label(v float64) string {
	if !a.Log {
		return formatTick(v, a.Step)
	}
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v/1000, 'f', -1, 64) + "k"
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 1, 64)
}

// niceStep is the round step (1, 2, 2.5 or 5 × 10^k) that cuts span into
// about target intervals.
func niceStep(span float64, target int) float64 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(target)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// niceAxis returns an axis covering [lo, hi] with round ends and about
// target ticks, kept within [floor, ceil].
func niceAxis(lo, hi float64, target int, floor, ceil float64) axis {
	if hi < lo {
		lo, hi = hi, lo
	}
	step := niceStep(hi-lo, target)
	a := axis{Min: math.Floor(lo/step+1e-9) * step, Max: math.Ceil(hi/step-1e-9) * step, Step: step}
	if a.Max <= a.Min {
		a.Max = a.Min + step
	}
	a.Min, a.Max = math.Max(a.Min, floor), math.Min(a.Max, ceil)
	for v := a.Min; v <= a.Max+step*1e-6; v += step {
		a.Ticks = append(a.Ticks, math.Round(v/step)*step)
	}
	return a
}

// scoreAxis fits the score axis (×100) to the points: at least 10 points
// tall so near-equal scores are not stretched into a ranking, never
// outside 0–100.
func scoreAxis(ys []float64) axis {
	lo, hi := ys[0], ys[0]
	for _, y := range ys {
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	pad := math.Max((hi-lo)*0.08, 1)
	lo, hi = lo-pad, hi+pad
	if hi-lo < 10 {
		mid := (hi + lo) / 2
		lo, hi = mid-5, mid+5
	}
	if lo < 0 {
		hi -= lo
		lo = 0
	}
	if hi > 100 {
		lo = math.Max(0, lo-(hi-100))
		hi = 100
	}
	return niceAxis(lo, hi, 4, 0, 100)
}

// logSpread is the ratio of the largest to the smallest measurement above
// which a measurement axis is logarithmic: on a linear one the small
// values would all sit on the left edge.
const logSpread = 20

// measureAxis is an axis from 0 to a little above the largest value, or a
// logarithmic one over whole 1-2-5 steps when the values spread over more
// than logSpread×.
func measureAxis(xs []float64) axis {
	lo, hi := math.Inf(1), 0.0
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if hi <= 0 {
		hi = 1
	}
	if lo > 0 && hi/lo > logSpread {
		return logAxis(lo, hi)
	}
	return niceAxis(0, hi*1.06, 5, 0, math.Inf(1))
}

// logAxis covers [lo, hi] from the 1-2-5 step at or below lo to the one at
// or above hi, with ticks at those steps; an axis over more than three
// decades runs from power of ten to power of ten, ticked at each.
func logAxis(lo, hi float64) axis {
	steps := func(decade float64) []float64 { return []float64{decade, 2 * decade, 5 * decade} }
	a := axis{Log: true}
	for d := math.Pow(10, math.Floor(math.Log10(lo))); ; d *= 10 {
		for _, v := range steps(d) {
			if v <= lo*(1+1e-9) {
				a.Min = v
			}
			if v >= hi*(1-1e-9) && a.Max == 0 {
				a.Max = v
			}
		}
		if a.Max > 0 {
			break
		}
	}
	sparse := math.Log10(a.Max)-math.Log10(a.Min) > 3
	if sparse {
		a.Min = math.Pow(10, math.Floor(math.Log10(a.Min)+1e-9))
		a.Max = math.Pow(10, math.Ceil(math.Log10(a.Max)-1e-9))
	}
	for d := math.Pow(10, math.Floor(math.Log10(a.Min))); d <= a.Max*(1+1e-9); d *= 10 {
		for i, v := range steps(d) {
			if v >= a.Min*(1-1e-9) && v <= a.Max*(1+1e-9) && (!sparse || i == 0) {
				a.Ticks = append(a.Ticks, v)
			}
		}
	}
	return a
}

// formatTick prints v with as many decimals as step needs: 25 → "25",
// 2.5 → "2.5", 0.25 → "0.25"; never rounds a tick to a neighbour's value.
func formatTick(v, step float64) string {
	dec := 0
	for s := step; dec < 6 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(step)); s *= 10 {
		dec++
	}
	if math.Abs(v) < step*1e-9 {
		v = 0
	}
	return fmt.Sprintf("%.*f", dec, v)
}

// pareto returns the indices of the points no other point dominates
// (higher score, and higher x when xHigherIsBetter else lower x; equal in
// one and better in the other also dominates), sorted by x.
func pareto(pts []plotPoint, xHigherIsBetter bool) []int {
	better := func(a, b float64) bool { // a at least as good as b in x
		if xHigherIsBetter {
			return a >= b
		}
		return a <= b
	}
	var front []int
	for i, p := range pts {
		dominated := false
		for j, q := range pts {
			if i == j {
				continue
			}
			if better(q.X, p.X) && q.Y >= p.Y && (q.X != p.X || q.Y != p.Y) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, b int) bool { return pts[front[a]].X < pts[front[b]].X })
	return front
}

// box is a rectangle in SVG user units.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

func (a box) inside(b box) bool {
	return a.x0 >= b.x0 && a.x1 <= b.x1 && a.y0 >= b.y0 && a.y1 <= b.y1
}

// Label metrics: plot labels are set in labelFont at labelSize; textWidth
// over-estimates their width from Verdana's / DejaVu Sans's advances (the
// widest common sans-serif faces), so a box that clears another here
// clears it in narrower faces too.
const (
	labelSize = 12.0
	labelFont = `Verdana, "DejaVu Sans", sans-serif`
)

func textWidth(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("il.,:;'|!jI", r):
			w += 0.32
		case strings.ContainsRune("frt ()[]-/", r):
			w += 0.45
		case strings.ContainsRune("mwMW", r):
			w += 1.0
		case r >= 'A' && r <= 'Z':
			w += 0.78
		case r >= '0' && r <= '9':
			w += 0.66
		case r >= 'a' && r <= 'z':
			w += 0.64
		case r < 128:
			w += 0.7
		default:
			w += 1.0 // CJK and other wide glyphs
		}
	}
	return w * size
}

// placed is a label's position: the text's anchor point and box, and the
// leader line's ends when the label sits away from its dot.
type placed struct {
	ok       bool
	x, y     float64 // text baseline start (text-anchor start)
	b        box
	leader   bool
	lx1, ly1 float64
	lx2, ly2 float64
}

// placeLabels puts each point's label next to its dot where it overlaps no
// other label, no dot, none of lines (boxes around drawn segments) and
// stays inside area: first in one of eight
// positions around the dot, then farther out with a leader line. Points
// are placed in the order given (callers put the Pareto front first); a
// label that fits nowhere is left out (ok false) and listed under the plot.
func placeLabels(dots [][2]float64, labels []string, order []int, area box, lines []box) []placed {
	const r, gap = 5.5, 3.0
	out := make([]placed, len(labels))
	taken := append([]box(nil), lines...)
	for _, d := range dots {
		taken = append(taken, box{d[0] - r, d[1] - r, d[0] + r, d[1] + r})
	}
	h := labelSize * 1.15
	free := func(b box) bool {
		if !b.inside(area) {
			return false
		}
		for _, t := range taken {
			if b.overlaps(t) {
				return false
			}
		}
		return true
	}
	for _, i := range order {
		w := textWidth(labels[i], labelSize)
		cx, cy := dots[i][0], dots[i][1]
		// The label box's top-left for a placement at angle θ and distance
		// d: the box is pushed out from the dot along θ.
		try := func(theta, d float64) (placed, bool) {
			ux, uy := math.Cos(theta), math.Sin(theta)
			px, py := cx+ux*d, cy+uy*d
			x0 := px - w/2 + ux*w/2
			y0 := py - h/2 + uy*h/2
			b := box{x0 - 1, y0 - 1, x0 + w + 1, y0 + h + 1}
			if !free(b) {
				return placed{}, false
			}
			return placed{ok: true, x: x0, y: y0 + h*0.8, b: b}, true
		}
		var p placed
		found := false
		for _, a := range []float64{0, 180, -90, 90, -35, 35, -145, 145} {
			if p, found = try(a*math.Pi/180, r+gap); found {
				break
			}
		}
		for _, d := range []float64{22, 34, 48, 64, 82, 104} {
			if found {
				break
			}
			for k := 0; k < 24; k++ {
				theta := float64(k) * math.Pi / 12
				if p, found = try(theta, d); found {
					p.leader = true
					p.lx1, p.ly1 = cx+math.Cos(theta)*r, cy+math.Sin(theta)*r
					p.lx2, p.ly2 = nearest(p.b, cx, cy)
					break
				}
			}
		}
		if found {
			taken = append(taken, p.b)
			out[i] = p
		}
	}
	return out
}

// nearest is the point of b closest to (x, y).
func nearest(b box, x, y float64) (float64, float64) {
	return math.Max(b.x0, math.Min(x, b.x1)), math.Max(b.y0, math.Min(y, b.y1))
}

// scatterSpec describes one scatter plot.
type scatterSpec struct {
	Title, XLabel, YLabel string
	XHigherIsBetter       bool
	XUnit                 string // for the Pareto list: "tok/s", "MB", "J"
	XDecimals             int
}

// scatterResult is a rendered plot with its Pareto front and the labels
// that did not fit.
type scatterResult struct {
	SVG       template.HTML
	Front     []plotPoint
	Unlabeled []plotPoint
	Points    int
}

// geometry is a plot's size in SVG user units; the page scales the SVG to
// its box, so labels are placed for the size a plot is shown at: wide on
// screens, narrow on phones.
type geometry struct {
	W, H           float64
	ML, MR, MT, MB float64 // margins: left (ticks and axis label), right, top, bottom
	Class          string
}

var (
	wideGeometry   = geometry{W: 520, H: 360, ML: 58, MR: 18, MT: 16, MB: 46, Class: "wide"}
	narrowGeometry = geometry{W: 350, H: 320, ML: 56, MR: 12, MT: 12, MB: 44, Class: "narrow"}
)

const (
	plotDotR         = 5.0
	plotLabelAreaPad = 2.0
	plotEmpty        = "no run has both measurements"
)

// scatter renders a score-vs-measurement plot: ticks at round values (a
// logarithmic measurement axis when the values spread widely), the Pareto
// front as a dashed staircase with its points blue, and labels placed
// without collisions.
func scatter(spec scatterSpec, g geometry, pts []plotPoint) scatterResult {
	var s strings.Builder
	res := scatterResult{Points: len(pts)}
	fmt.Fprintf(&s, `<svg class="plot %s" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" role="img" aria-label="%s">`,
		g.Class, g.W, g.H, template.HTMLEscapeString(spec.Title+": "+spec.YLabel+" against "+spec.XLabel))
	x0, x1, y0, y1 := g.ML, g.W-g.MR, g.MT, g.H-g.MB
	xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		xs[i], ys[i] = p.X, p.Y
	}
	xa := measureAxis(xs)
	xlabel := spec.XLabel
	if xa.Log {
		xlabel += ", log scale"
	}
	fmt.Fprintf(&s, `<text x="%g" y="%g" class="alabel" text-anchor="middle">%s</text>`, (x0+x1)/2, g.H-8, template.HTMLEscapeString(xlabel))
	fmt.Fprintf(&s, `<text x="14" y="%g" class="alabel" text-anchor="middle" transform="rotate(-90 14 %g)">%s</text>`, (y0+y1)/2, (y0+y1)/2, template.HTMLEscapeString(spec.YLabel))
	if len(pts) == 0 {
		fmt.Fprintf(&s, `<rect x="%g" y="%g" width="%g" height="%g" class="frame"/>`, x0, y0, x1-x0, y1-y0)
		fmt.Fprintf(&s, `<text x="%g" y="%g" class="empty" text-anchor="middle">%s</text></svg>`, (x0+x1)/2, (y0+y1)/2, plotEmpty)
		res.SVG = template.HTML(s.String())
		return res
	}
	ya := scoreAxis(ys)
	sx := func(x float64) float64 { return x0 + xa.pos(x)*(x1-x0) }
	sy := func(y float64) float64 { return y1 - (y-ya.Min)/(ya.Max-ya.Min)*(y1-y0) }
	for _, t := range ya.Ticks {
		fmt.Fprintf(&s, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" class="grid"/>`, x0, sy(t), x1, sy(t))
		fmt.Fprintf(&s, `<text x="%g" y="%.1f" class="tick" text-anchor="end">%s</text>`, x0-6, sy(t)+4, formatTick(t, ya.Step))
	}
	for _, t := range xa.Ticks {
		fmt.Fprintf(&s, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" class="grid"/>`, sx(t), y0, sx(t), y1)
		fmt.Fprintf(&s, `<text x="%.1f" y="%g" class="tick" text-anchor="middle">%s</text>`, sx(t), y1+17, xa.label(t))
	}
	fmt.Fprintf(&s, `<rect x="%g" y="%g" width="%g" height="%g" class="frame"/>`, x0, y0, x1-x0, y1-y0)

	front := pareto(pts, spec.XHigherIsBetter)
	onFront := map[int]bool{}
	for _, i := range front {
		onFront[i] = true
		res.Front = append(res.Front, pts[i])
	}
	// The front's staircase; its segments are obstacles for the labels.
	var lines []box
	if len(front) > 1 {
		var path strings.Builder
		seg := func(ax, ay, bx, by float64) {
			lines = append(lines, box{math.Min(ax, bx) - 1.5, math.Min(ay, by) - 1.5, math.Max(ax, bx) + 1.5, math.Max(ay, by) + 1.5})
		}
		px, py := sx(pts[front[0]].X), sy(pts[front[0]].Y)
		fmt.Fprintf(&path, "M%.1f %.1f", px, py)
		for _, i := range front[1:] {
			nx, ny := sx(pts[i].X), sy(pts[i].Y)
			if spec.XHigherIsBetter { // down, then across
				fmt.Fprintf(&path, " V%.1f H%.1f", ny, nx)
				seg(px, py, px, ny)
				seg(px, ny, nx, ny)
			} else { // across, then up
				fmt.Fprintf(&path, " H%.1f V%.1f", nx, ny)
				seg(px, py, nx, py)
				seg(nx, py, nx, ny)
			}
			px, py = nx, ny
		}
		fmt.Fprintf(&s, `<path d="%s" class="front"/>`, path.String())
	}
	dots := make([][2]float64, len(pts))
	labels := make([]string, len(pts))
	for i, p := range pts {
		dots[i] = [2]float64{sx(p.X), sy(p.Y)}
		labels[i] = p.Label
	}
	order := append([]int(nil), front...)
	rest := make([]int, 0, len(pts))
	for i := range pts {
		if !onFront[i] {
			rest = append(rest, i)
		}
	}
	sort.SliceStable(rest, func(a, b int) bool { return pts[rest[a]].Y > pts[rest[b]].Y })
	order = append(order, rest...)
	area := box{x0 + plotLabelAreaPad, y0 + plotLabelAreaPad, x1 - plotLabelAreaPad, y1 - plotLabelAreaPad}
	pl := placeLabels(dots, labels, order, area, lines)
	for _, p := range pl {
		if p.ok && p.leader {
			fmt.Fprintf(&s, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="leader"/>`, p.lx1, p.ly1, p.lx2, p.ly2)
		}
	}
	for i, p := range pts {
		cls := "dot"
		if onFront[i] {
			cls += " on-front"
		}
		if p.Hollow {
			cls += " hollow"
		}
		fmt.Fprintf(&s, `<a href="#%s"><circle cx="%.1f" cy="%.1f" r="%g" class="%s"><title>%s: score %.2f, %s %s</title></circle></a>`,
			template.HTMLEscapeString(p.Anchor), dots[i][0], dots[i][1], plotDotR, cls, template.HTMLEscapeString(p.Label), p.Y,
			strings.TrimSpace(fmt.Sprintf("%.*f", spec.XDecimals, p.X)), spec.XUnit)
	}
	for i, p := range pts {
		if !pl[i].ok {
			res.Unlabeled = append(res.Unlabeled, p)
			continue
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%.1f" class="pl" data-i="%d">%s</text>`, pl[i].x, pl[i].y, i, template.HTMLEscapeString(p.Label))
	}
	s.WriteString(`</svg>`)
	res.SVG = template.HTML(s.String())
	return res
}
