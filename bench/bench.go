// Package bench measures an in-process runtime's speed, memory and,
// optionally, energy the way MNN's llm_bench (and llama.cpp's llama-bench)
// measure speed: synthetic prompts, prefill and decode throughput per
// repetition, the first repetition discarded as warm-up.
//
// A measurement is a list of tests:
//
//   - ppN: prefill N prompt tokens, nothing decoded (prefill tok/s);
//   - tgN: decode N tokens from a 1-token context (decode tok/s);
//   - ppN+tgM: prefill N tokens, then decode M on the same KV cache,
//     reporting prefill and decode tok/s separately.
//
// As llm_bench does, every test gets a freshly opened runtime (the Opener
// learns which test it opens for, so engine settings can follow the test,
// as MNN's dynamic_option does), and runs Reps+1 times; the first run is
// dropped. Speeds are summarised as mean ± sample standard deviation over
// the repetitions (llm_bench's convention) and as the median (the
// MNN-Pocket report's); Config.Center names the headline one.
//
// Around each test the package records what a reader needs to trust the
// numbers: the load time, the peak resident-memory increment over the
// pre-load baseline (split into the Go runtime's growth and the rest, the
// engine's share), the package size on disk and the load average (speeds
// on a shared machine mean little without it). With Config.Energy every
// measured repetition is also an energy round (see package energy): an
// idle window as long as the previous run, then the run. With
// Config.Speculative every test is measured twice, stepwise, without and
// with speculative decoding, and the report gives the speedup, the draft
// acceptance rate and the mean accepted length.
//
// The package does not choose threads or engine settings: the runtime is
// opened by the caller's Opener, already configured.
package bench

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"
	"time"

	"github.com/pocketeval/pocketeval/energy"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/stats"
)

// Config selects the tests. The zero value runs nothing; DefaultConfig is
// llm_bench's default (-p 512 -n 128, 5 repetitions).
type Config struct {
	// Prompt is the length of the prefill-only test (0: none).
	Prompt int
	// Gen is the length of the decode-only test (0: none).
	Gen int
	// PG lists prefill+decode tests on a shared KV cache.
	PG []PG
	// Reps is the number of measured repetitions per test; 0 means 5.
	// One more run precedes them and is discarded.
	Reps int
	// Center is the headline statistic of the speeds: "mean" (llm_bench)
	// or "median" (the MNN-Pocket release); "" means "mean".
	Center string
	// Profile names the profile the config came from ("" if none).
	Profile string
	// Energy, when not nil, measures every measured repetition's energy.
	Energy *EnergyConfig
	// Speculative measures every test twice, stepwise, without and with
	// speculative decoding (OpenRequest.Speculative).
	Speculative bool
	// Depths runs every test at each depth: that many tokens already in
	// the KV cache, computed untimed before the test (llama-bench's -d).
	// Nil or [0] is depth 0 only.
	Depths []int
	// Thermal, when not nil, records the CPU frequencies and thermal
	// zones before each test and after each repetition (thermal.go).
	Thermal *Thermal
	// Cooldown, when not nil, waits before each test's load until the
	// device is cool enough (it needs Thermal).
	Cooldown *Cooldown
	// Prompts, when not nil, replaces the synthetic tests with one row
	// timing a task's real requests (latency.go); Reps is then the number
	// of passes over them.
	Prompts *Prompts
}

// EnergyConfig configures the energy measurement.
type EnergyConfig struct {
	Meter *energy.Meter
	// Inferences is the number of runs per round (0 means 1): a meter
	// that updates slowly needs rounds of a few seconds.
	Inferences int
	// Battery is the battery's capacity for the percentage per 100
	// inferences; nil leaves it out.
	Battery *energy.Capacity
}

// DefaultConfig is llm_bench's default: pp512 and tg128, 5 repetitions.
var DefaultConfig = Config{Prompt: 512, Gen: 128, Reps: 5}

// PG is one prefill+decode test.
type PG struct{ Prompt, Gen int }

// Test is one line of the report.
type Test struct {
	Name    string `json:"name"` // pp512, tg128, pp512+tg128, pp512@d2048
	NPrompt int    `json:"n_prompt"`
	NGen    int    `json:"n_gen"`
	// Depth is the number of tokens in the KV cache before the test.
	Depth int `json:"n_depth,omitempty"`
}

// Tests lists the tests c selects, in llm_bench's order: pp, tg, then pg;
// with Depths, that list at every depth in turn (llama-bench's order),
// named "@dN" for a depth N > 0.
func (c Config) Tests() []Test {
	var base []Test
	if c.Prompt > 0 {
		base = append(base, Test{Name: fmt.Sprintf("pp%d", c.Prompt), NPrompt: c.Prompt})
	}
	if c.Gen > 0 {
		base = append(base, Test{Name: fmt.Sprintf("tg%d", c.Gen), NGen: c.Gen})
	}
	for _, pg := range c.PG {
		base = append(base, Test{Name: fmt.Sprintf("pp%d+tg%d", pg.Prompt, pg.Gen), NPrompt: pg.Prompt, NGen: pg.Gen})
	}
	depths := c.Depths
	if len(depths) == 0 {
		depths = []int{0}
	}
	var ts []Test
	for _, d := range depths {
		for _, t := range base {
			if d > 0 {
				t.Depth = d
				t.Name += fmt.Sprintf("@d%d", d)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

func (c Config) validate() error {
	if c.Prompt < 0 || c.Gen < 0 || c.Reps < 0 {
		return fmt.Errorf("prompt, gen and reps must not be negative (got %d, %d, %d)", c.Prompt, c.Gen, c.Reps)
	}
	for _, pg := range c.PG {
		if pg.Prompt <= 0 || pg.Gen <= 0 {
			return fmt.Errorf("pg %d,%d: both lengths must be positive", pg.Prompt, pg.Gen)
		}
	}
	for _, d := range c.Depths {
		if d < 0 {
			return fmt.Errorf("depth %d: must not be negative", d)
		}
	}
	if err := c.Prompts.validate(); err != nil {
		return err
	}
	if len(c.Tests()) == 0 && c.Prompts == nil {
		return errors.New("no tests selected")
	}
	if c.Cooldown != nil && c.Thermal == nil {
		return errors.New("cool-down: no thermal sysfs to read")
	}
	if c.Center != "" && c.Center != "mean" && c.Center != "median" {
		return fmt.Errorf("center %q: want mean or median", c.Center)
	}
	if c.Energy != nil && c.Energy.Meter == nil {
		return errors.New("energy: no meter")
	}
	if c.Speculative {
		for _, t := range c.Tests() {
			if t.NGen == 0 {
				return fmt.Errorf("speculative decoding: test %s decodes nothing", t.Name)
			}
		}
	}
	return nil
}

// OpenRequest says what an Opener opens the runtime for.
type OpenRequest struct {
	Test Test
	// Speculative asks for the runtime with speculative decoding on.
	Speculative bool
	// Prompts asks for the runtime as `run` opens it, to serve a task's
	// real requests (Config.Prompts), not synthetic ones.
	Prompts bool
}

// Opener opens the runtime under test. Run calls it once per test (twice
// with Config.Speculative) and times it.
type Opener func(ctx context.Context, req OpenRequest) (runtime.Runtime, error)

// Probe reads the process state bench records. System is the real one.
type Probe interface {
	// Memory returns the current and peak resident set size in bytes.
	Memory() (rss, peak int64, err error)
	// ResetPeak makes the peak equal to the current RSS; an error means
	// the peak keeps counting from process start.
	ResetPeak() error
	// LoadAvg returns the 1, 5 and 15 minute load averages.
	LoadAvg() ([3]float64, error)
}

// CPUModeler is a Probe that can name the CPU (procfs.FS: /proc/cpuinfo's
// model name); reports record it.
type CPUModeler interface {
	CPUModel() string
}

// GoMemoryProbe is a Probe that also reads the Go runtime's own memory.
type GoMemoryProbe interface {
	// GoMemory returns the bytes the Go runtime holds and has not
	// released to the operating system.
	GoMemory() int64
}

// Report is the result of Run.
type Report struct {
	Model        string       `json:"model"`
	Runtime      runtime.Info `json:"runtime"`
	PackageBytes int64        `json:"package_bytes"`
	Profile      string       `json:"profile,omitempty"`
	// Center is the headline statistic: "mean" or "median".
	Center string `json:"center"`
	// LoadSeconds is the wall time of opening the runtime for the first
	// test.
	LoadSeconds float64    `json:"load_s"`
	LoadAvg     [3]float64 `json:"load_avg_start"`
	LoadAvgEnd  [3]float64 `json:"load_avg_end"`
	// CPU is the processor model ("" if unknown) and CPUs the number of
	// logical CPUs usable by the process.
	CPU  string `json:"cpu,omitempty"`
	CPUs int    `json:"cpus"`
	// Memory is the largest footprint of any test.
	Memory Memory `json:"memory"`
	Reps   int    `json:"reps"`
	Rows   []Row  `json:"rows"`
	// Warnings are caveats that do not invalidate the numbers.
	Warnings []string `json:"warnings,omitempty"`
	// Incomplete is set when the run stopped before its last test (an
	// interrupt, an engine error): Rows then hold only the tests that
	// finished.
	Incomplete *Incomplete `json:"incomplete,omitempty"`
}

// Incomplete says where a run that did not finish stopped.
type Incomplete struct {
	// Test is the test that did not finish.
	Test string `json:"test"`
	// Measured and Planned count the tests finished and the tests asked for.
	Measured int `json:"tests_measured"`
	Planned  int `json:"tests_planned"`
	// Reason is the error that stopped the run.
	Reason string `json:"reason"`
}

// Memory is the resident-memory footprint of loading and running one test.
type Memory struct {
	// Test is the test measured.
	Test          string `json:"test,omitempty"`
	BaselineBytes int64  `json:"baseline_bytes"` // VmRSS before the first test's runtime was opened
	PeakBytes     int64  `json:"peak_bytes"`     // VmHWM over the test (reset before its load)
	// IncrementBytes is PeakBytes - BaselineBytes: the process's figure.
	IncrementBytes int64 `json:"increment_bytes"`
	// GoBytes is how much the Go runtime's own memory grew over the same
	// span (0 when unknown), and EngineBytes = IncrementBytes - GoBytes,
	// the engine's share.
	GoBytes     int64 `json:"go_bytes"`
	EngineBytes int64 `json:"engine_bytes"`
	// PeakReset reports whether the peak was reset to the baseline
	// (clear_refs); when false the peak counts from process start.
	PeakReset bool `json:"peak_reset"`
}

// Row is one test's measurements.
type Row struct {
	Test
	// LoadSeconds is the wall time of opening the runtime for this test.
	LoadSeconds float64 `json:"load_s"`
	Memory      Memory  `json:"memory"`
	// Stepwise is true when decoding ran one engine call per step
	// (runtime.BenchRequest.Stepwise).
	Stepwise bool `json:"stepwise,omitempty"`
	// Prefill is prompt tok/s per repetition (nil for tg tests).
	Prefill *Speed `json:"prefill,omitempty"`
	// Decode is decoded tok/s per repetition (nil for pp tests).
	Decode *Speed `json:"decode,omitempty"`
	// GenTokens are the tokens actually decoded per repetition (a stop
	// token can end decoding early).
	GenTokens []int `json:"gen_tokens,omitempty"`
	// FirstTokenMS is the median time to the first token in ms (0 if
	// unknown).
	FirstTokenMS float64 `json:"first_token_ms,omitempty"`
	// Energy is the energy per inference (Config.Energy).
	Energy *energy.Result `json:"energy,omitempty"`
	// Speculative is the same test with speculative decoding
	// (Config.Speculative).
	Speculative *Speculative `json:"speculative,omitempty"`
	// Cooldown is the wait before the test's load (Config.Cooldown).
	Cooldown *CooldownWait `json:"cooldown,omitempty"`
	// Thermal are the CPU frequencies and thermal zones before the load
	// (Rep -1) and after every repetition (Config.Thermal; left out when
	// the device exposes neither).
	Thermal []ThermalState `json:"thermal,omitempty"`
	// Phases are the cold and steady-state speeds (2 repetitions or more).
	Phases *Phases `json:"phases,omitempty"`
	// Latency is the row of Config.Prompts: a task's real requests.
	Latency *Latency `json:"latency,omitempty"`
}

// CooldownWait is how a test's cool-down went.
type CooldownWait struct {
	TargetC float64 `json:"target_c"`
	Zone    Zone    `json:"zone"` // the hottest matching zone at the end of the wait
	WaitedS float64 `json:"waited_s"`
	Reached bool    `json:"reached"`
}

// Speculative is a test measured with speculative decoding.
type Speculative struct {
	// Settings are the speculative runtime's settings.
	Settings map[string]any `json:"settings,omitempty"`
	// Memory is the speculative runtime's footprint.
	Memory    Memory `json:"memory"`
	Prefill   *Speed `json:"prefill,omitempty"`
	Decode    *Speed `json:"decode"`
	GenTokens []int  `json:"gen_tokens"`
	// Speedup is the decode speed with speculation over the speed
	// without, both at the report's center.
	Speedup float64 `json:"speedup"`
	// VerifySteps, Drafted and Accepted are totals over the measured
	// repetitions: target forward passes while decoding, draft tokens
	// they checked, draft tokens kept.
	VerifySteps int `json:"verify_steps"`
	Drafted     int `json:"drafted"`
	Accepted    int `json:"accepted"`
	// AcceptanceRate is Accepted / Drafted (0 when nothing was drafted).
	AcceptanceRate float64 `json:"acceptance_rate"`
	// MeanAcceptedLength is the mean number of tokens decoded per target
	// forward pass: 1 + accepted drafts per pass.
	MeanAcceptedLength float64 `json:"mean_accepted_length"`
}

// Speed summarises tok/s over repetitions.
type Speed struct {
	Mean   float64   `json:"mean"`
	SD     float64   `json:"sd"` // sample standard deviation; 0 with one value
	Median float64   `json:"median"`
	Values []float64 `json:"values"`
}

// Summarize computes the mean, sample standard deviation and median.
func Summarize(v []float64) *Speed {
	if len(v) == 0 {
		return nil
	}
	return &Speed{Values: slices.Clone(v), Mean: stats.Mean(v), SD: stats.SD(v), Median: stats.Median(v)}
}

// Center returns the mean or the median of s, as center says ("" is
// mean); 0 for a nil s.
func (s *Speed) Center(center string) float64 {
	if s == nil {
		return 0
	}
	if center == "median" {
		return s.Median
	}
	return s.Mean
}

// Run runs every test of cfg, each on a runtime it opens and closes. model
// names the package (for the report and its size on disk). When a test
// fails or ctx is cancelled, Run returns the error together with the
// report of the tests already finished, marked Incomplete (nil only when
// cfg is invalid).
func Run(ctx context.Context, open Opener, model string, cfg Config, probe Probe) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if cfg.Reps == 0 {
		cfg.Reps = DefaultConfig.Reps
	}
	if cfg.Center == "" {
		cfg.Center = "mean"
	}
	rep := &Report{Model: model, Reps: cfg.Reps, CPUs: goruntime.NumCPU(), Profile: cfg.Profile, Center: cfg.Center}
	if m, ok := probe.(CPUModeler); ok {
		rep.CPU = m.CPUModel()
	}
	warn := func(format string, args ...any) { rep.Warnings = append(rep.Warnings, fmt.Sprintf(format, args...)) }

	size, err := PackageSize(model)
	if err != nil {
		warn("%v", err)
	}
	rep.PackageBytes = size
	if la, err := probe.LoadAvg(); err != nil {
		warn("load average: %v", err)
	} else {
		rep.LoadAvg = la
	}

	// Every test's increment is over the memory before the first load:
	// an engine leaves a few MiB of one-time state (MNN: about 8 MiB)
	// that the next one reuses, so a later baseline would understate it.
	m := &measurer{probe: probe, cfg: cfg}
	if m.base, _, err = probe.Memory(); err != nil {
		warn("memory: %v", err)
	}
	if gp, ok := probe.(GoMemoryProbe); ok {
		m.goBase = gp.GoMemory()
	}
	tests := cfg.Tests()
	if cfg.Prompts != nil {
		tests = []Test{{Name: "prompts:" + cfg.Prompts.Task}}
	}
	finish := func() {
		if la, err := probe.LoadAvg(); err == nil {
			rep.LoadAvgEnd = la
		}
		if rep.LoadAvg[0] > 1.5 {
			warn("load average %.2f at the start: other work competed for the CPU", rep.LoadAvg[0])
		}
	}
	// stop ends the run at test i, keeping the rows finished before it.
	stop := func(i int, err error) (*Report, error) {
		rep.Incomplete = &Incomplete{Test: tests[i].Name, Measured: len(rep.Rows), Planned: len(tests), Reason: err.Error()}
		finish()
		return rep, err
	}
	for i, t := range tests {
		if err := ctx.Err(); err != nil {
			return stop(i, err)
		}
		var row Row
		var info runtime.Info
		if cfg.Prompts != nil {
			row, info, err = m.latency(ctx, open, cfg.Prompts)
		} else {
			row, info, err = m.test(ctx, open, t, OpenRequest{Test: t}, cfg.Energy)
		}
		if err != nil {
			return stop(i, err)
		}
		if i == 0 {
			rep.Runtime = info
			rep.LoadSeconds = row.LoadSeconds
			if m.resetErr != nil {
				warn("peak memory counts from process start: %v", m.resetErr)
			}
		}
		if cfg.Speculative && cfg.Prompts == nil {
			srow, sinfo, err := m.test(ctx, open, t, OpenRequest{Test: t, Speculative: true}, nil)
			if err != nil {
				return stop(i, fmt.Errorf("bench %s with speculative decoding: %w", t.Name, err))
			}
			row.Speculative = speculative(row, srow, sinfo, cfg.Center)
			if row.Speculative.Drafted == 0 {
				warn("%s: no draft tokens were proposed: speculative decoding was inactive (MNN falls back to plain decoding when llm.mnn's logits_index input has no shape) or found no draft (the llama.cpp draft model's probabilities stayed below its p-min)", t.Name)
			}
		}
		if t.NGen > 0 && slices.Min(row.GenTokens) < t.NGen {
			warn("%s: a stop token ended decoding early (decoded %v tokens); decode speed counts the tokens decoded", t.Name, row.GenTokens)
		}
		if c := row.Cooldown; c != nil && !c.Reached {
			warn("%s: the device did not cool to %g°C within the cool-down's limit (%s at %.1f°C after %.0f s): measured warm", t.Name, c.TargetC, c.Zone.Type, c.Zone.C, c.WaitedS)
		}
		if row.Energy != nil {
			for _, w := range row.Energy.Warnings {
				warn("%s energy: %s", t.Name, w)
			}
		}
		if row.Memory.IncrementBytes >= rep.Memory.IncrementBytes || i == 0 {
			rep.Memory = row.Memory
		}
		rep.Rows = append(rep.Rows, row)
	}
	finish()
	return rep, nil
}

// speculative compares a test's stepwise row without speculation (base)
// and with it (spec).
func speculative(base, spec Row, info runtime.Info, center string) *Speculative {
	s := &Speculative{
		Settings: info.Settings, Memory: spec.Memory, Prefill: spec.Prefill, Decode: spec.Decode, GenTokens: spec.GenTokens,
		VerifySteps: spec.Speculative.VerifySteps, Drafted: spec.Speculative.Drafted, Accepted: spec.Speculative.Accepted,
	}
	if b := base.Decode.Center(center); b > 0 {
		s.Speedup = spec.Decode.Center(center) / b
	}
	if s.Drafted > 0 {
		s.AcceptanceRate = float64(s.Accepted) / float64(s.Drafted)
	}
	if s.VerifySteps > 0 {
		var n int
		for _, g := range spec.GenTokens {
			n += g
		}
		s.MeanAcceptedLength = float64(n) / float64(s.VerifySteps)
	}
	return s
}

// measurer measures tests, each on its own runtime.
type measurer struct {
	probe Probe
	cfg   Config
	// base and goBase are the process's resident memory and the Go
	// runtime's before the first load.
	base, goBase int64
	resetErr     error
}

// test opens the runtime for req, measures t on it and closes it. The row's
// Speculative field carries the draft totals when req.Speculative.
func (m *measurer) test(ctx context.Context, open Opener, t Test, req OpenRequest, en *EnergyConfig) (Row, runtime.Info, error) {
	row := Row{Test: t, Stepwise: m.cfg.Speculative || t.Depth > 0}
	info, err := m.measure(ctx, open, req, &row, func(rt runtime.Runtime) error {
		b, ok := rt.(runtime.Bencher)
		if !ok {
			return fmt.Errorf("bench: runtime %T has no synthetic benchmark: %w", rt, runtime.ErrNotSupported)
		}
		return m.runs(ctx, b, &row, en)
	})
	return row, info, err
}

// measure waits for the cool-down, opens the runtime for req, runs work
// on it, closes it and records the row's load time and memory (the peak
// is reset before the load).
func (m *measurer) measure(ctx context.Context, open Opener, req OpenRequest, row *Row, work func(runtime.Runtime) error) (runtime.Info, error) {
	row.Memory.Test = row.Name
	row.Memory.BaselineBytes = m.base
	if c := m.cfg.Cooldown; c != nil {
		z, waited, reached, err := c.Wait(ctx, *m.cfg.Thermal)
		if err != nil {
			return runtime.Info{}, fmt.Errorf("bench %s: %w", row.Name, err)
		}
		row.Cooldown = &CooldownWait{TargetC: c.TargetC, Zone: z, WaitedS: waited.Seconds(), Reached: reached}
	}
	m.snapshot(row, -1)
	if err := m.probe.ResetPeak(); err != nil {
		m.resetErr = err
	} else {
		row.Memory.PeakReset = true
	}
	start := time.Now()
	rt, err := open(ctx, req)
	if err != nil {
		return runtime.Info{}, fmt.Errorf("bench %s: %w", row.Name, err)
	}
	row.LoadSeconds = time.Since(start).Seconds()
	defer rt.Close()
	var info runtime.Info
	if d, ok := rt.(runtime.Describer); ok {
		info = d.Describe()
	}
	if err := work(rt); err != nil {
		return info, fmt.Errorf("bench %s: %w", row.Name, err)
	}
	if _, peak, err := m.probe.Memory(); err == nil {
		row.Memory.PeakBytes = peak
		row.Memory.IncrementBytes = peak - m.base
		row.Memory.EngineBytes = row.Memory.IncrementBytes
		if gp, ok := m.probe.(GoMemoryProbe); ok {
			row.Memory.GoBytes = max(0, gp.GoMemory()-m.goBase)
			row.Memory.EngineBytes -= row.Memory.GoBytes
		}
	}
	return info, nil
}

// snapshot records the thermal state after repetition rep (-1: before
// the load) when Config.Thermal is set and the device exposes any.
func (m *measurer) snapshot(row *Row, rep int) {
	if m.cfg.Thermal == nil {
		return
	}
	st := m.cfg.Thermal.Read()
	if len(st.Freqs) == 0 && len(st.Zones) == 0 {
		return
	}
	st.Rep = rep
	row.Thermal = append(row.Thermal, st)
}

// runs runs the row's test reps+1 times and drops the first run. With en,
// each measured repetition is an energy round.
func (m *measurer) runs(ctx context.Context, b runtime.Bencher, row *Row, en *EnergyConfig) error {
	t := row.Test
	var pre, dec, ftl []float64
	var spec Speculative
	breq := runtime.BenchRequest{NPrompt: t.NPrompt, NGen: t.NGen, Depth: t.Depth, Stepwise: row.Stepwise}
	record := func(res runtime.BenchResult) error {
		if t.NPrompt > 0 {
			if res.PrefillTime <= 0 {
				return errors.New("runtime reported no prefill time")
			}
			pre = append(pre, float64(res.PromptTokens)/res.PrefillTime.Seconds())
			if res.FirstTokenLag > 0 {
				ftl = append(ftl, float64(res.FirstTokenLag)/float64(time.Millisecond))
			}
		}
		if t.NGen > 0 {
			row.GenTokens = append(row.GenTokens, res.GenTokens)
			v := 0.0
			if res.GenTokens > 0 {
				if res.DecodeTime <= 0 {
					return errors.New("runtime reported no decode time")
				}
				v = float64(res.GenTokens) / res.DecodeTime.Seconds()
			}
			dec = append(dec, v)
		}
		spec.VerifySteps += res.VerifySteps
		spec.Drafted += res.Drafted
		spec.Accepted += res.Accepted
		return nil
	}
	inferences := 1
	if en != nil && en.Inferences > 0 {
		inferences = en.Inferences
	}
	var rounds []energy.Round
	var warns []string
	var last time.Duration // duration of the previous round (warm-up: scaled)
	for i := 0; i <= m.cfg.Reps; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// One round: inferences runs back to back (one without energy).
		n := 1
		if en != nil && i > 0 {
			n = inferences
		}
		work := func() error {
			start := time.Now()
			for k := 0; k < n; k++ {
				res, err := b.Bench(ctx, breq)
				if err != nil {
					return err
				}
				if i > 0 { // the warm-up is dropped
					if err := record(res); err != nil {
						return fmt.Errorf("repetition %d: %w", i, err)
					}
				}
			}
			last = time.Since(start)
			return nil
		}
		if en == nil || i == 0 {
			if err := work(); err != nil {
				return err
			}
			if i == 0 {
				last *= time.Duration(inferences)
			}
			m.snapshot(row, i)
			continue
		}
		round, w, err := en.Meter.Round(ctx, last, work)
		if err != nil {
			return fmt.Errorf("energy round %d: %w", i, err)
		}
		rounds = append(rounds, round)
		warns = append(warns, w...)
		m.snapshot(row, i)
	}
	row.Prefill = Summarize(pre)
	row.Decode = Summarize(dec)
	row.Phases = phasesOf(row.Prefill, row.Decode)
	row.FirstTokenMS = stats.Median(ftl)
	if m.cfg.Speculative {
		row.Speculative = &spec
	}
	if en != nil {
		res := energy.Summarize(en.Meter.Source.Describe(), en.Meter.Interval, inferences, rounds, en.Battery)
		res.Warnings = append(warns, res.Warnings...)
		row.Energy = &res
	}
	return nil
}
