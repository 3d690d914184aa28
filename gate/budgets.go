package gate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/stats"
)

// Budgets are on-device release criteria, the policy's budgets: key. An
// app team ships a model only if it is fast, small and frugal enough on the
// reference device, next to its quality:
//
//	budgets:
//	  bench_test: pp1024+tg128         # the bench test to read (default: the only one that measures it)
//	  decode_tok_s_min: 200            # decode tok/s at the report's center (mean or median)
//	  prefill_tok_s_min: 500
//	  peak_mem_increment_mb_max: 300   # MB = 2^20 bytes, as pocketeval prints them
//	  package_mb_max: 180
//	  energy_j_per_inference_max: 3.0  # bench --energy: mean over the rounds
//	  battery_pct_per_100_max: 1.0     # % of the battery that 100 inferences use
//
// Measurements come from bench --json (or energy --json) reports of the
// candidate; where no report measures a budget, from the candidate run's
// recorded figures (the median over tasks of each task's median decode and
// prefill tok/s, the in-process peak memory increment, the model's size on
// disk). A budget nothing measured fails and says what to provide.
type Budgets struct {
	BenchTest              string   `yaml:"bench_test"`
	DecodeTokSMin          *float64 `yaml:"decode_tok_s_min"`
	PrefillTokSMin         *float64 `yaml:"prefill_tok_s_min"`
	PeakMemIncrementMBMax  *float64 `yaml:"peak_mem_increment_mb_max"`
	PackageMBMax           *float64 `yaml:"package_mb_max"`
	EnergyJPerInferenceMax *float64 `yaml:"energy_j_per_inference_max"`
	BatteryPctPer100Max    *float64 `yaml:"battery_pct_per_100_max"`
}

// validate checks the limits of a parsed policy file.
func (b *Budgets) validate(file string) error {
	if b == nil {
		return nil
	}
	n := 0
	for _, l := range b.limits() {
		if l.limit == nil {
			continue
		}
		n++
		if !(*l.limit > 0) {
			return fmt.Errorf("policy %s: budgets.%s: must be positive, got %v", file, l.name, *l.limit)
		}
	}
	if n == 0 {
		return fmt.Errorf("policy %s: budgets: no budget set (decode_tok_s_min, prefill_tok_s_min, peak_mem_increment_mb_max, package_mb_max, energy_j_per_inference_max, battery_pct_per_100_max)", file)
	}
	return nil
}

// limit is one budget of a Budgets.
type limit struct {
	name  string   // the policy key
	what  string   // what is measured, with its unit
	max   bool     // the limit is a maximum
	limit *float64 // nil: not set
	// measure finds the value: from the reports, else from the run.
	measure func(b *Budgets, reports []rundir.BenchReport, run *rundir.Run) measured
}

// measured is a budget's measurement; Value nil means none was found and
// Missing says why.
type measured struct {
	Value   *float64
	Source  string
	Missing string
	// need is what is missing, when the caller's hint should follow
	// Missing.
	need Measure
}

func (b *Budgets) limits() []limit {
	return []limit{
		{"decode_tok_s_min", "decode tok/s", false, b.DecodeTokSMin, measureDecode},
		{"prefill_tok_s_min", "prefill tok/s", false, b.PrefillTokSMin, measurePrefill},
		{"peak_mem_increment_mb_max", "peak memory increment, MB", true, b.PeakMemIncrementMBMax, measureMemory},
		{"package_mb_max", "package size on disk, MB", true, b.PackageMBMax, measurePackage},
		{"energy_j_per_inference_max", "energy per inference, J", true, b.EnergyJPerInferenceMax, measureEnergy},
		{"battery_pct_per_100_max", "battery % per 100 inferences", true, b.BatteryPctPer100Max, measureBattery},
	}
}

// BudgetVerdict is the gate's decision on one budget.
type BudgetVerdict struct {
	Budget string   `json:"budget"` // the policy key, e.g. decode_tok_s_min
	What   string   `json:"what"`
	Limit  float64  `json:"limit"`
	Max    bool     `json:"max"`             // Limit is a maximum (else a minimum)
	Value  *float64 `json:"value,omitempty"` // nil: not measured
	Source string   `json:"source,omitempty"`
	Pass   bool     `json:"pass"`
	Reason string   `json:"reason,omitempty"`
	// need is what was not measured (Value nil), for the hint
	// AddBudgets appends to Reason.
	need Measure
}

// bound renders the limit, e.g. "≥ 200" or "≤ 300".
func (v BudgetVerdict) bound() string {
	if v.Max {
		return fmt.Sprintf("≤ %g", v.Limit)
	}
	return fmt.Sprintf("≥ %g", v.Limit)
}

// CheckBudgets checks each budget p sets against the reports, or the
// candidate run where no report measures it. It returns nil when the
// policy has no budgets.
func CheckBudgets(p *Policy, reports []rundir.BenchReport, candidate *rundir.Run) []BudgetVerdict {
	b := p.Budgets
	if b == nil {
		return nil
	}
	var out []BudgetVerdict
	for _, l := range b.limits() {
		if l.limit == nil {
			continue
		}
		m := l.measure(b, reports, candidate)
		v := BudgetVerdict{Budget: l.name, What: l.what, Limit: *l.limit, Max: l.max, Value: m.Value, Source: m.Source, Pass: true, need: m.need}
		switch {
		case m.Value == nil:
			v.Pass = false
			v.Reason = "not measured: " + m.Missing
		case l.max && *m.Value > *l.limit:
			v.Pass = false
			v.Reason = fmt.Sprintf("%.4g is above the budget %s", *m.Value, v.bound())
		case !l.max && *m.Value < *l.limit:
			v.Pass = false
			v.Reason = fmt.Sprintf("%.4g is below the budget %s", *m.Value, v.bound())
		}
		out = append(out, v)
	}
	return out
}

// AddBudgets records budget verdicts; a failed one fails the gate.
func (g *GateResult) AddBudgets(vs []BudgetVerdict) {
	for _, v := range vs {
		if h := g.Hints.Measures[v.need]; v.need != 0 && h != "" {
			v.Reason += paren(h)
		}
		if !v.Pass {
			g.Pass = false
			g.Failures = append(g.Failures, "budget "+v.Budget+": "+v.Reason)
		}
		g.Budgets = append(g.Budgets, v)
	}
}

// budgetRows renders the budgets as rows of the gate's Markdown table
// (task, metric, baseline, candidate, Δ, CI, p, verdict).
func (g *GateResult) budgetRows() string {
	var b strings.Builder
	for _, v := range g.Budgets {
		value := "not measured"
		if v.Value != nil {
			value = fmt.Sprintf("%.4g", *v.Value)
		}
		verdict := "pass (" + v.bound() + ")"
		if !v.Pass {
			verdict = "**FAIL**: " + v.Reason
		}
		fmt.Fprintf(&b, "| budget %s | %s (%s) | – | %s | – | – | – | %s |\n", v.Budget, v.What, v.Source, value, verdict)
	}
	return b.String()
}

// budgetCase is a budget's JUnit test case: name, output and, when it
// failed, the failure message.
func (v BudgetVerdict) junit() (name, out, failure string) {
	value := "not measured"
	if v.Value != nil {
		value = fmt.Sprintf("%.4g", *v.Value)
	}
	out = fmt.Sprintf("%s: %s, budget %s (%s)", v.What, value, v.bound(), v.Source)
	if !v.Pass {
		failure = v.Reason
	}
	return "budget:" + v.Budget, out, failure
}

// speedFromReports reads a speed from the reports at each report's center.
func speedFromReports(b *Budgets, reports []rundir.BenchReport, speed func(bench.Row) *bench.Speed) (measured, string) {
	row, rep, why := rundir.PickBenchRow(reports, b.BenchTest, func(r bench.Row) bool { return speed(r) != nil })
	if why != "" || speed(row) == nil {
		return measured{}, why
	}
	center := rep.Report.Center
	if center == "" {
		center = "mean"
	}
	return measured{Value: ptr(speed(row).Center(center)), Source: fmt.Sprintf("%s: %s, %s of %d", filepath.Base(rep.Path), row.Name, center, len(speed(row).Values))}, ""
}

// speedFromRun is the median over the run's tasks of each task's median
// (timing picks the figure).
func speedFromRun(run *rundir.Run, timing func(*results.Timing) float64, what string) measured {
	if run == nil {
		return measured{}
	}
	var v []float64
	for _, t := range run.Tasks() {
		if ts, ok := run.Summary.Tasks[t]; ok && ts.Timing != nil {
			if x := timing(ts.Timing); x > 0 {
				v = append(v, x)
			}
		}
	}
	if len(v) == 0 {
		return measured{}
	}
	return measured{Value: ptr(stats.Median(v)), Source: fmt.Sprintf("run %s: median over %d tasks of the median %s", run.Dir, len(v), what)}
}

// measureSpeed reads a speed (what) from the reports' rows (speed), else
// from the run's task timings (timing).
func measureSpeed(what string, speed func(bench.Row) *bench.Speed, timing func(*results.Timing) float64) func(*Budgets, []rundir.BenchReport, *rundir.Run) measured {
	return func(b *Budgets, reports []rundir.BenchReport, run *rundir.Run) measured {
		m, why := speedFromReports(b, reports, speed)
		if m.Value == nil && why == "" {
			m = speedFromRun(run, timing, what)
		}
		if m.Value == nil && why != "" {
			m.Missing = why
		} else if m.Value == nil {
			m.Missing, m.need = fmt.Sprintf("no bench report measures %s and the run has no such timings", what), MeasureSpeed
		}
		return m
	}
}

var (
	measureDecode = measureSpeed("decode tok/s", func(r bench.Row) *bench.Speed { return r.Decode },
		func(t *results.Timing) float64 { return t.DecodeTPSMedian })
	measurePrefill = measureSpeed("prefill tok/s", func(r bench.Row) *bench.Speed { return r.Prefill },
		func(t *results.Timing) float64 { return t.PrefillTPSMedian })
)

// mib is the MB pocketeval prints: 2^20 bytes.
func mib(bytes int64) float64 { return float64(bytes) / (1 << 20) }

func measureMemory(b *Budgets, reports []rundir.BenchReport, run *rundir.Run) measured {
	var best *bench.Memory
	var from string
	for _, r := range reports {
		m := r.Report.Memory
		if m.IncrementBytes > 0 && (best == nil || m.IncrementBytes > best.IncrementBytes) {
			best, from = &m, filepath.Base(r.Path)
		}
	}
	if best != nil {
		return measured{Value: ptr(mib(best.IncrementBytes)), Source: fmt.Sprintf("%s: peak over the pre-load baseline, %s", from, best.Test)}
	}
	if run != nil && run.Manifest.Resources != nil && run.Manifest.Resources.InProcess {
		return measured{Value: ptr(run.Manifest.Resources.PeakIncreaseMB), Source: "run " + run.Dir + ": peak over the pre-load baseline"}
	}
	return measured{Missing: "no bench report and no in-process memory figures in the run"}
}

func measurePackage(b *Budgets, reports []rundir.BenchReport, run *rundir.Run) measured {
	for _, r := range reports {
		if r.Report.PackageBytes > 0 {
			return measured{Value: ptr(mib(r.Report.PackageBytes)), Source: filepath.Base(r.Path) + ": " + r.Report.Model}
		}
	}
	if run != nil && run.Manifest.Config.Model.Path != "" {
		if n, err := bench.PackageSize(run.Manifest.Config.Model.Path); err == nil {
			return measured{Value: ptr(mib(n)), Source: run.Manifest.Config.Model.Path}
		}
	}
	return measured{Missing: "no bench report, and the run's model is not on this machine"}
}

func measureEnergy(b *Budgets, reports []rundir.BenchReport, run *rundir.Run) measured {
	row, rep, why := rundir.PickBenchRow(reports, b.BenchTest, func(r bench.Row) bool { return r.Energy != nil })
	if row.Energy == nil {
		return missingEnergy(why, MeasureEnergy)
	}
	e := row.Energy
	return measured{Value: ptr(e.JoulesPerInference.Mean), Source: fmt.Sprintf("%s: %s, %s, mean of %d rounds", filepath.Base(rep.Path), row.Name, e.Source.Name, len(e.Rounds))}
}

func measureBattery(b *Budgets, reports []rundir.BenchReport, run *rundir.Run) measured {
	row, rep, why := rundir.PickBenchRow(reports, b.BenchTest, func(r bench.Row) bool { return r.Energy != nil })
	switch {
	case row.Energy == nil:
		return missingEnergy(why, MeasureBatteryEnergy)
	case row.Energy.BatteryPctPer100 == nil:
		return measured{Missing: fmt.Sprintf("%s: %s has energy but no battery capacity", filepath.Base(rep.Path), row.Name), need: MeasureBatteryCapacity}
	}
	e := row.Energy
	return measured{Value: ptr(e.BatteryPctPer100.Mean), Source: fmt.Sprintf("%s: %s, %.0f J battery, mean of %d rounds", filepath.Base(rep.Path), row.Name, e.Battery.Joules, len(e.Rounds))}
}

func ptr(x float64) *float64 { return &x }

// missingEnergy is a missing energy measurement: why, else no report
// with energy (with the caller's hint for need).
func missingEnergy(why string, need Measure) measured {
	if why != "" {
		return measured{Missing: why}
	}
	return measured{Missing: "no bench report with energy", need: need}
}
