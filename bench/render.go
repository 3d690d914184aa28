package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("write bench json: %w", err)
	}
	return nil
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(path string) (*Report, error) {
	data, err := regfile.ReadFile(path, regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("read bench report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read bench report %s: %w", path, err)
	}
	if len(r.Rows) == 0 {
		return nil, fmt.Errorf("read bench report %s: no rows (not a bench report in JSON?)", path)
	}
	return &r, nil
}

// WriteMarkdown writes a short header (first, the INCOMPLETE line of a run
// that stopped early) and markdown tables: per test,
// prefill and decode tok/s as mean ± sd and as median, the median time to
// the first token, the load time and the memory increment; then the
// energy and speculative-decoding tables when measured.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	name := r.Runtime.Name
	if r.Runtime.Version != "" {
		name += " " + r.Runtime.Version
	}
	if inc := r.Incomplete; inc != nil {
		fmt.Fprintf(&b, "INCOMPLETE: %s\n", inc)
	}
	fmt.Fprintf(&b, "model: %s (%s on disk)\n", r.Model, formatBytes(r.PackageBytes))
	if name != "" {
		fmt.Fprintf(&b, "runtime: %s", name)
		if s := formatSettings(r.Runtime.Settings); s != "" {
			fmt.Fprintf(&b, " (%s)", s)
		}
		b.WriteString("\n")
	}
	if r.Profile != "" {
		fmt.Fprintf(&b, "profile: %s\n", r.Profile)
	}
	fmt.Fprintf(&b, "load: %.3f s; %s\n", r.LoadSeconds, formatMemory(r.Memory))
	cpu := r.CPU
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(&b, "machine: %s, %d CPUs; load average %.2f %.2f %.2f at start, %.2f %.2f %.2f at end\n", cpu, r.CPUs,
		r.LoadAvg[0], r.LoadAvg[1], r.LoadAvg[2], r.LoadAvgEnd[0], r.LoadAvgEnd[1], r.LoadAvgEnd[2])
	center := r.Center
	if center == "" {
		center = "mean"
	}
	fmt.Fprintf(&b, "repetitions: %d per test, after 1 discarded warm-up run; headline: %s\n", r.Reps, center)
	if slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Prefill != nil || row.Decode != nil }) {
		writeSpeeds(&b, r)
	}
	writeEnergy(&b, r)
	writeSpeculative(&b, r)
	writeLatency(&b, r) // render_device.go
	writeDepths(&b, r)  // render_device.go
	writeThermal(&b, r) // render_device.go
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "\nnote: %s", warn)
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String says where the run stopped and how much of it was measured.
func (inc *Incomplete) String() string {
	return fmt.Sprintf("stopped at test %s, %d of %d tests measured (%s)", inc.Test, inc.Measured, inc.Planned, inc.Reason)
}

func writeSpeeds(b *strings.Builder, r *Report) {
	b.WriteString("\n| test | prefill tok/s | prefill median | decode tok/s | decode median | first token ms | load s | peak RSS + |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		if row.Latency != nil {
			continue
		}
		ftl := ""
		if row.FirstTokenMS > 0 {
			ftl = fmt.Sprintf("%.1f", row.FirstTokenMS)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %.3f | %s |\n", row.Name,
			meanSD(row.Prefill), med(row.Prefill), meanSD(row.Decode), med(row.Decode), ftl, row.LoadSeconds, formatBytes(row.Memory.IncrementBytes))
	}
}

// formatMemory describes a test's memory figures.
func formatMemory(m Memory) string {
	s := fmt.Sprintf("peak RSS +%s over a %s baseline", formatBytes(m.IncrementBytes), formatBytes(m.BaselineBytes))
	if m.EngineBytes != 0 {
		s += fmt.Sprintf(" (engine %s, Go runtime %s)", formatBytes(m.EngineBytes), formatBytes(m.GoBytes))
	}
	if m.Test != "" {
		s += " in " + m.Test
	}
	if !m.PeakReset {
		s += " (peak counted from process start)"
	}
	return s
}

func writeEnergy(b *strings.Builder, r *Report) {
	first := true
	for _, row := range r.Rows {
		e := row.Energy
		if e == nil {
			continue
		}
		if first {
			fmt.Fprintf(b, "\nenergy: %s (%s), sampled every %g ms; idle baseline as long as the run before each round\n", e.Source.Name, e.Source.Path, e.IntervalMS)
			if len(e.Source.Conventions) > 0 {
				fmt.Fprintf(b, "conventions: %s\n", strings.Join(e.Source.Conventions, "; "))
			}
			if e.Battery != nil {
				fmt.Fprintf(b, "battery: %.0f J (%s)\n", e.Battery.Joules, e.Battery.From)
			}
			b.WriteString("\n| test | J per inference | % battery per 100 | idle W | rounds × inferences |\n|---|---:|---:|---:|---:|\n")
			first = false
		}
		pct := ""
		if e.BatteryPctPer100 != nil {
			pct = fmt.Sprintf("%.3f ± %.3f", e.BatteryPctPer100.Mean, e.BatteryPctPer100.SD)
		}
		var idle float64
		for _, rd := range e.Rounds {
			idle += rd.IdleWatts
		}
		if len(e.Rounds) > 0 {
			idle /= float64(len(e.Rounds))
		}
		fmt.Fprintf(b, "| %s | %.3f ± %.3f | %s | %.3f | %d × %d |\n", row.Name, e.JoulesPerInference.Mean, e.JoulesPerInference.SD,
			pct, idle, len(e.Rounds), e.Inferences)
	}
}

func writeSpeculative(b *strings.Builder, r *Report) {
	first := true
	for _, row := range r.Rows {
		s := row.Speculative
		if s == nil || s.Decode == nil {
			continue
		}
		if first {
			b.WriteString("\nspeculative decoding (both sides stepwise: one engine call per decoding step)")
			if d := diffSettings(r.Runtime.Settings, s.Settings); d != "" {
				fmt.Fprintf(b, ": %s", d)
			}
			b.WriteString("\n\n| test | decode tok/s without | decode tok/s with | speedup | acceptance | mean accepted length | verify steps |\n|---|---:|---:|---:|---:|---:|---:|\n")
			first = false
		}
		fmt.Fprintf(b, "| %s | %s | %s | %.2f× | %.1f%% (%d/%d) | %.2f | %d |\n", row.Name, meanSD(row.Decode), meanSD(s.Decode),
			s.Speedup, 100*s.AcceptanceRate, s.Accepted, s.Drafted, s.MeanAcceptedLength, s.VerifySteps)
	}
}

// diffSettings lists the settings of b that a lacks or sets differently.
func diffSettings(a, b map[string]any) string {
	d := map[string]any{}
	for k, v := range b {
		if av, ok := a[k]; !ok || fmt.Sprint(av) != fmt.Sprint(v) {
			d[k] = v
		}
	}
	return formatSettings(d)
}

func meanSD(s *Speed) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%.2f ± %.2f", s.Mean, s.SD)
}

func med(s *Speed) string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%.2f", s.Median)
}

func formatSettings(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// formatBytes prints a byte count in MiB with one decimal (KiB below 1 MiB).
func formatBytes(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	if n < 1<<20 {
		return fmt.Sprintf("%s%.1f KiB", sign, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%s%.1f MiB", sign, float64(n)/(1<<20))
}
