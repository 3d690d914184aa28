package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/stats"
)

// writeLatency writes the table of a prompts row: per latency, the mean
// and p50/p90/p99 with their intervals.
func writeLatency(b *strings.Builder, r *Report) {
	for _, row := range r.Rows {
		l := row.Latency
		if l == nil {
			continue
		}
		level := 0.95
		if l.E2E != nil {
			level = l.E2E.P50.Level
		}
		fmt.Fprintf(b, "\nlatency on %s's prompts: %d prompts, %d requests measured one at a time after 1 warm-up request; %.1f prompt and %.1f completion tokens per request; finished %s; intervals: %g%% order-statistic\n",
			l.Task, l.Prompts, l.Requests, l.PromptTokens, l.CompletionTokens, formatFinished(l.Finished), 100*level)
		b.WriteString("\n| ms | mean | p50 | p90 | p99 | n |\n|---|---:|---:|---:|---:|---:|\n")
		for _, x := range []struct {
			name string
			s    *LatencyStats
		}{{"time to first token", l.TTFT}, {"time per output token", l.TPOT}, {"end to end", l.E2E}} {
			if x.s == nil {
				fmt.Fprintf(b, "| %s | – | – | – | – | 0 |\n", x.name)
				continue
			}
			fmt.Fprintf(b, "| %s | %.1f | %s | %s | %s | %d |\n", x.name, x.s.Mean, FormatQuantile(x.s.P50), FormatQuantile(x.s.P90), FormatQuantile(x.s.P99), x.s.N)
		}
	}
}

// FormatQuantile prints a quantile with its interval, "12.3 [11.0, 15.2]",
// with ∞ (or -∞) for a side the sample is too small to bound.
func FormatQuantile(q stats.Quantile) string {
	if q.N == 0 {
		return "–"
	}
	lo, hi := fmt.Sprintf("%.1f", q.Lo), fmt.Sprintf("%.1f", q.Hi)
	if q.LoOpen {
		lo = "-∞"
	}
	if q.HiOpen {
		hi = "∞"
	}
	return fmt.Sprintf("%.1f [%s, %s]", q.Value, lo, hi)
}

func formatFinished(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		name := k
		if name == "" {
			name = "unknown"
		}
		parts[i] = fmt.Sprintf("%d %s", m[k], name)
	}
	return strings.Join(parts, ", ")
}

// DepthPoint is one test at one depth, for the depth table and plot.
type DepthPoint struct {
	Base    string // the test's name without the depth
	Depth   int
	Prefill float64 // tok/s at the report's center (0: none)
	Decode  float64
	PeakMiB float64
	Speedup float64 // speculative decode speedup (0: not measured)
}

// DepthPoints lists the report's rows by test, then depth, when it ran at
// more than one depth (nil otherwise).
func DepthPoints(r *Report) []DepthPoint {
	var pts []DepthPoint
	depths := map[int]bool{}
	for _, row := range r.Rows {
		if row.Latency != nil {
			continue
		}
		base, _, _ := strings.Cut(row.Name, "@d")
		p := DepthPoint{Base: base, Depth: row.Depth, Prefill: row.Prefill.Center(r.Center), Decode: row.Decode.Center(r.Center),
			PeakMiB: float64(row.Memory.IncrementBytes) / (1 << 20)}
		if row.Speculative != nil {
			p.Speedup = row.Speculative.Speedup
		}
		depths[row.Depth] = true
		pts = append(pts, p)
	}
	if len(depths) < 2 {
		return nil
	}
	slices.SortStableFunc(pts, func(a, b DepthPoint) int {
		if c := strings.Compare(a.Base, b.Base); c != 0 {
			return c
		}
		return a.Depth - b.Depth
	})
	return pts
}

func writeDepths(b *strings.Builder, r *Report) {
	pts := DepthPoints(r)
	if pts == nil {
		return
	}
	spec := slices.ContainsFunc(pts, func(p DepthPoint) bool { return p.Speedup > 0 })
	fmt.Fprintf(b, "\nby context depth (tokens already in the KV cache; %s tok/s):\n\n| test | depth | prefill tok/s | decode tok/s | peak RSS + MiB |", r.Center)
	if spec {
		b.WriteString(" speculative speedup |")
	}
	b.WriteString("\n|---|---:|---:|---:|---:|")
	if spec {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	num := func(v float64) string {
		if v == 0 {
			return ""
		}
		return fmt.Sprintf("%.2f", v)
	}
	for _, p := range pts {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %.1f |", p.Base, p.Depth, num(p.Prefill), num(p.Decode), p.PeakMiB)
		if spec {
			fmt.Fprintf(b, " %s%s |", num(p.Speedup), times(p.Speedup))
		}
		b.WriteString("\n")
	}
}

func times(v float64) string {
	if v == 0 {
		return ""
	}
	return "×"
}

// writeThermal writes, for rows with thermal readings, the hottest zone
// and the fastest CPU over the repetitions, and the cold and steady-state
// speeds.
func writeThermal(b *strings.Builder, r *Report) {
	first := true
	for _, row := range r.Rows {
		if len(row.Thermal) == 0 && row.Cooldown == nil {
			continue
		}
		if first {
			b.WriteString("\nthermal state (hottest zone and fastest CPU frequency before the load and after each repetition; cold: the first measured repetition; steady: the median of the last half)\n\n")
			b.WriteString("| test | cool-down | hottest °C (first → last) | max CPU MHz (first → last) | cold prefill | steady prefill | cold decode | steady decode |\n|---|---|---|---|---:|---:|---:|---:|\n")
			first = false
		}
		cool := ""
		if c := row.Cooldown; c != nil {
			state := "reached"
			if !c.Reached {
				state = "not reached"
			}
			cool = fmt.Sprintf("≤ %g°C %s after %.0f s", c.TargetC, state, c.WaitedS)
		}
		temp, freq := "", ""
		if n := len(row.Thermal); n > 0 {
			a, z := row.Thermal[0], row.Thermal[n-1]
			if za, ok := a.Hottest(""); ok {
				zz, _ := z.Hottest("")
				temp = fmt.Sprintf("%.1f (%s) → %.1f (%s)", za.C, za.Type, zz.C, zz.Type)
			}
			if a.MaxFreq() > 0 {
				freq = fmt.Sprintf("%.0f → %.0f", float64(a.MaxFreq())/1000, float64(z.MaxFreq())/1000)
			}
		}
		var cp, sp, cd, sd string
		if p := row.Phases; p != nil {
			f := func(v float64) string {
				if v == 0 || math.IsNaN(v) {
					return ""
				}
				return fmt.Sprintf("%.2f", v)
			}
			cp, sp, cd, sd = f(p.ColdPrefill), f(p.SteadyPrefill), f(p.ColdDecode), f(p.SteadyDecode)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", row.Name, cool, temp, freq, cp, sp, cd, sd)
	}
}
