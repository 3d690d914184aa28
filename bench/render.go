package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
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

// WriteMarkdown writes a short header and a markdown table: per test,
// prefill and decode tok/s as mean ± sd and as median, and the median time
// to the first token.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	name := r.Runtime.Name
	if r.Runtime.Version != "" {
		name += " " + r.Runtime.Version
	}
	fmt.Fprintf(&b, "model: %s (%s on disk)\n", r.Model, formatBytes(r.PackageBytes))
	if name != "" {
		fmt.Fprintf(&b, "runtime: %s", name)
		if s := formatSettings(r.Runtime.Settings); s != "" {
			fmt.Fprintf(&b, " (%s)", s)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "load: %.3f s; peak RSS +%s over a %s baseline", r.LoadSeconds,
		formatBytes(r.Memory.IncrementBytes), formatBytes(r.Memory.BaselineBytes))
	if !r.Memory.PeakReset {
		b.WriteString(" (peak counted from process start)")
	}
	b.WriteString("\n")
	cpu := r.CPU
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(&b, "machine: %s, %d CPUs; load average %.2f %.2f %.2f at start, %.2f %.2f %.2f at end\n", cpu, r.CPUs,
		r.LoadAvg[0], r.LoadAvg[1], r.LoadAvg[2], r.LoadAvgEnd[0], r.LoadAvgEnd[1], r.LoadAvgEnd[2])
	fmt.Fprintf(&b, "repetitions: %d per test, after 1 discarded warm-up run\n\n", r.Reps)
	b.WriteString("| test | prefill tok/s | prefill median | decode tok/s | decode median | first token ms |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|\n")
	for _, row := range r.Rows {
		ftl := ""
		if row.FirstTokenMS > 0 {
			ftl = fmt.Sprintf("%.1f", row.FirstTokenMS)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", row.Name,
			meanSD(row.Prefill), med(row.Prefill), meanSD(row.Decode), med(row.Decode), ftl)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "\nnote: %s", warn)
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
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
