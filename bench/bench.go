// Package bench measures an in-process runtime's speed and memory the way
// MNN's llm_bench (and llama.cpp's llama-bench) do: synthetic prompts,
// prefill and decode throughput per repetition, the first repetition
// discarded as warm-up.
//
// A measurement is a list of tests:
//
//   - ppN: prefill N prompt tokens, nothing decoded (prefill tok/s);
//   - tgN: decode N tokens from a 1-token context (decode tok/s);
//   - ppN+tgM: prefill N tokens, then decode M on the same KV cache,
//     reporting prefill and decode tok/s separately.
//
// Each test runs Reps+1 times; the first run is dropped. Speeds are
// summarised as mean ± sample standard deviation over the repetitions
// (llm_bench's convention) and as the median (the MNN-Pocket report's).
// Around the runs the package records what a reader needs to trust the
// numbers: the load time, the peak resident-memory increment over the
// pre-load baseline, the package size on disk and the load average at the
// start (speeds on a shared machine mean little without it).
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
}

// DefaultConfig is llm_bench's default: pp512 and tg128, 5 repetitions.
var DefaultConfig = Config{Prompt: 512, Gen: 128, Reps: 5}

// PG is one prefill+decode test.
type PG struct{ Prompt, Gen int }

// Test is one line of the report.
type Test struct {
	Name    string `json:"name"` // pp512, tg128, pp512+tg128
	NPrompt int    `json:"n_prompt"`
	NGen    int    `json:"n_gen"`
}

// Tests lists the tests c selects, in llm_bench's order: pp, tg, then pg.
func (c Config) Tests() []Test {
	var ts []Test
	if c.Prompt > 0 {
		ts = append(ts, Test{Name: fmt.Sprintf("pp%d", c.Prompt), NPrompt: c.Prompt})
	}
	if c.Gen > 0 {
		ts = append(ts, Test{Name: fmt.Sprintf("tg%d", c.Gen), NGen: c.Gen})
	}
	for _, pg := range c.PG {
		ts = append(ts, Test{Name: fmt.Sprintf("pp%d+tg%d", pg.Prompt, pg.Gen), NPrompt: pg.Prompt, NGen: pg.Gen})
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
	if len(c.Tests()) == 0 {
		return errors.New("no tests selected")
	}
	return nil
}

// Opener opens the runtime under test. Run calls it once and times it.
type Opener func(ctx context.Context) (runtime.Runtime, error)

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

// Report is the result of Run.
type Report struct {
	Model        string       `json:"model"`
	Runtime      runtime.Info `json:"runtime"`
	PackageBytes int64        `json:"package_bytes"`
	// LoadSeconds is the wall time of opening the runtime.
	LoadSeconds float64    `json:"load_s"`
	LoadAvg     [3]float64 `json:"load_avg_start"`
	LoadAvgEnd  [3]float64 `json:"load_avg_end"`
	// CPU is the processor model ("" if unknown) and CPUs the number of
	// logical CPUs usable by the process.
	CPU    string `json:"cpu,omitempty"`
	CPUs   int    `json:"cpus"`
	Memory Memory `json:"memory"`
	Reps   int    `json:"reps"`
	Rows   []Row  `json:"rows"`
	// Warnings are caveats that do not invalidate the numbers.
	Warnings []string `json:"warnings,omitempty"`
}

// Memory is the resident-memory footprint of loading and running.
type Memory struct {
	BaselineBytes int64 `json:"baseline_bytes"` // VmRSS before opening the runtime
	PeakBytes     int64 `json:"peak_bytes"`     // VmHWM after the runs
	// IncrementBytes is PeakBytes - BaselineBytes.
	IncrementBytes int64 `json:"increment_bytes"`
	// PeakReset reports whether the peak was reset to the baseline
	// (clear_refs); when false the peak counts from process start.
	PeakReset bool `json:"peak_reset"`
}

// Row is one test's measurements.
type Row struct {
	Test
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

// Run opens the runtime, runs every test of cfg and closes it. model names
// the package (for the report and its size on disk).
func Run(ctx context.Context, open Opener, model string, cfg Config, probe Probe) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if cfg.Reps == 0 {
		cfg.Reps = DefaultConfig.Reps
	}
	rep := &Report{Model: model, Reps: cfg.Reps, CPUs: goruntime.NumCPU()}
	if m, ok := probe.(interface{ CPUModel() string }); ok {
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
	base, _, err := probe.Memory()
	if err != nil {
		warn("memory: %v", err)
	}
	rep.Memory.BaselineBytes = base
	if err := probe.ResetPeak(); err != nil {
		warn("peak memory counts from process start: %v", err)
	} else {
		rep.Memory.PeakReset = true
	}

	start := time.Now()
	rt, err := open(ctx)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	rep.LoadSeconds = time.Since(start).Seconds()
	defer rt.Close()
	if d, ok := rt.(runtime.Describer); ok {
		rep.Runtime = d.Describe()
	}
	b, ok := rt.(runtime.Bencher)
	if !ok {
		return nil, fmt.Errorf("bench: runtime %T has no synthetic benchmark: %w", rt, runtime.ErrNotSupported)
	}

	for _, t := range cfg.Tests() {
		row, err := runTest(ctx, b, t, cfg.Reps)
		if err != nil {
			return nil, fmt.Errorf("bench %s: %w", t.Name, err)
		}
		if t.NGen > 0 && slices.Min(row.GenTokens) < t.NGen {
			warn("%s: a stop token ended decoding early (decoded %v tokens); decode speed counts the tokens decoded", t.Name, row.GenTokens)
		}
		rep.Rows = append(rep.Rows, row)
	}

	if _, peak, err := probe.Memory(); err == nil {
		rep.Memory.PeakBytes = peak
		rep.Memory.IncrementBytes = peak - base
	}
	if la, err := probe.LoadAvg(); err == nil {
		rep.LoadAvgEnd = la
	}
	if rep.LoadAvg[0] > 1.5 {
		warn("load average %.2f at the start: other work competed for the CPU", rep.LoadAvg[0])
	}
	return rep, nil
}

// runTest runs t reps+1 times and drops the first run.
func runTest(ctx context.Context, b runtime.Bencher, t Test, reps int) (Row, error) {
	row := Row{Test: t}
	var pre, dec, ftl []float64
	for i := 0; i <= reps; i++ {
		if err := ctx.Err(); err != nil {
			return row, err
		}
		res, err := b.Bench(ctx, runtime.BenchRequest{NPrompt: t.NPrompt, NGen: t.NGen})
		if err != nil {
			return row, err
		}
		if i == 0 {
			continue // warm-up
		}
		if t.NPrompt > 0 {
			if res.PrefillTime <= 0 {
				return row, fmt.Errorf("repetition %d: runtime reported no prefill time", i)
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
					return row, fmt.Errorf("repetition %d: runtime reported no decode time", i)
				}
				v = float64(res.GenTokens) / res.DecodeTime.Seconds()
			}
			dec = append(dec, v)
		}
	}
	row.Prefill = Summarize(pre)
	row.Decode = Summarize(dec)
	row.FirstTokenMS = stats.Median(ftl)
	return row, nil
}
