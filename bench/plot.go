package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WriteDepthSVG draws a depth sweep (DepthPoints) as an SVG with two
// panels over the depths (a linear axis, each depth ticked and labelled
// where there is room): prefill and decode
// tok/s per test, and the peak resident-memory increment, the
// memory-vs-context curve. It fails when the report has one depth only.
func WriteDepthSVG(w io.Writer, r *Report) error {
	pts := DepthPoints(r)
	if pts == nil {
		return fmt.Errorf("depth plot: the report has no depth sweep (a bench over two or more depths)")
	}
	var depths []int
	var bases []string
	for _, p := range pts {
		if !slices.Contains(depths, p.Depth) {
			depths = append(depths, p.Depth)
		}
		if !slices.Contains(bases, p.Base) {
			bases = append(bases, p.Base)
		}
	}
	slices.Sort(depths)
	title := fmt.Sprintf("%s: speed and memory by context depth (%s, %s)", modelName(r.Model), r.Runtime.Name, r.Center)
	if inc := r.Incomplete; inc != nil {
		title += fmt.Sprintf(" — INCOMPLETE: %d of %d tests, stopped at %s", inc.Measured, inc.Planned, inc.Test)
	}
	const pw, ph, left, top, gap = 360.0, 220.0, 72.0, 40.0, 96.0
	width, height := left+2*pw+gap+20, top+ph+70
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<text x="%.0f" y="16" font-size="13">%s</text>`+"\n", left, html.EscapeString(title))
	colors := []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
	type series struct {
		name, color string
		dash        bool
		ys          map[int]float64
	}
	var speed, mem []series
	for i, base := range bases {
		c := colors[i%len(colors)]
		pre, dec, peak := series{base + " prefill", c, false, map[int]float64{}}, series{base + " decode", c, true, map[int]float64{}}, series{base, c, false, map[int]float64{}}
		for _, p := range pts {
			if p.Base != base {
				continue
			}
			if p.Prefill > 0 {
				pre.ys[p.Depth] = p.Prefill
			}
			if p.Decode > 0 {
				dec.ys[p.Depth] = p.Decode
			}
			peak.ys[p.Depth] = p.PeakMiB
		}
		for _, s := range []series{pre, dec} {
			if len(s.ys) > 0 {
				speed = append(speed, s)
			}
		}
		mem = append(mem, peak)
	}
	panel := func(x0 float64, title, unit string, ss []series) {
		ymax := 0.0
		for _, s := range ss {
			for _, y := range s.ys {
				ymax = math.Max(ymax, y)
			}
		}
		ymax = niceCeil(ymax)
		fmt.Fprintf(&b, `<g><text x="%.1f" y="%.1f">%s</text>`+"\n", x0, top-8, html.EscapeString(title))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", x0, top, pw, ph)
		for i := 0; i <= 4; i++ {
			v := ymax * float64(i) / 4
			y := top + ph - ph*float64(i)/4
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0, x0+pw, y, y, x0-4, y+4, trimNum(v))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">%s</text>`+"\n", x0-58, top+ph/2, x0-58, top+ph/2, unit)
		// A linear axis: the distances between depths are the distances
		// between their token counts, so a curve bends where it bends.
		lo, hi := depths[0], depths[len(depths)-1]
		xOf := func(i int) float64 {
			if hi == lo {
				return x0 + pw/2
			}
			return x0 + 20 + (pw-40)*float64(depths[i]-lo)/float64(hi-lo)
		}
		last := math.Inf(-1)
		for i, d := range depths {
			// Every depth has a tick; a label that would overlap the
			// previous one is left out (its points name it).
			x := xOf(i)
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999"/>`+"\n", x, x, top+ph, top+ph+4)
			if x-last >= 7*float64(len(strconv.Itoa(d)))+6 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x, top+ph+14, d)
				last = x
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">depth (tokens in the KV cache, linear scale)</text>`+"\n", x0+pw/2, top+ph+30)
		yOf := func(v float64) float64 {
			if ymax == 0 {
				return top + ph
			}
			return top + ph - ph*v/ymax
		}
		for k, s := range ss {
			var path []string
			for i, d := range depths {
				if y, ok := s.ys[d]; ok {
					path = append(path, fmt.Sprintf("%.1f,%.1f", xOf(i), yOf(y)))
					fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s at depth %d: %s %s</title></circle>`+"\n", xOf(i), yOf(y), s.color, html.EscapeString(s.name), d, trimNum(y), unit)
				}
			}
			dash := ""
			if s.dash {
				dash = ` stroke-dasharray="5,3"`
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>`+"\n", strings.Join(path, " "), s.color, dash)
			ly := top + ph + 46 + float64(k/2)*13
			lx := x0 + float64(k%2)*pw/2
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5"%s/><text x="%.1f" y="%.1f">%s</text>`+"\n", lx, lx+18, ly-4, ly-4, s.color, dash, lx+22, ly, html.EscapeString(s.name))
		}
		b.WriteString("</g>\n")
	}
	panel(left, "speed", "tok/s", speed)
	panel(left+pw+gap, "peak resident memory over the pre-load baseline", "MiB", mem)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// modelName is the model as a reader names it: the file's or package
// directory's base name, not the path as typed (an MNN config.json names
// its directory).
func modelName(path string) string {
	if path == "" {
		return "model"
	}
	p := filepath.Clean(path)
	if b := filepath.Base(p); strings.HasSuffix(b, ".json") {
		p = filepath.Dir(p)
	}
	return filepath.Base(p)
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (1 for v <= 0).
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if float64(m*p) >= v {
			return float64(m * p)
		}
	}
	return 10 * p
}

func trimNum(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
