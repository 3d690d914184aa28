package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/energy"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// benchCommands returns the bench area's commands.
func benchCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdBench(f, nil), NewCmdEnergy(f, nil)}
}

// BenchOptions are the options of `pocketeval bench`.
type BenchOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
	Config  bench.Config
	JSON    bool
	Quiet   bool // --quiet: no progress line (--prompts-from)
	// Probe reads memory and load average; bench.System by default.
	Probe bench.Probe
	// Open opens the runtime for one test; set by the command from
	// Runtime (see benchOpener).
	Open bench.Opener
	// Energy selects the energy meter (EnergyFlags.kind "none": off).
	Energy EnergyFlags
	// Notes are printed to stderr before the measurement.
	Notes []string
	// Device are the depth, cool-down and real-prompt flags
	// (bench_device.go); Tasks lists the tasks --prompts-from names.
	Device DeviceFlags
	Tasks  func() []evals.Task
}

// EnergyFlags are the flags that configure energy sampling.
type EnergyFlags struct {
	Kind        string
	Interval    time.Duration
	Inferences  int
	Root        string
	Supply      string
	CurrentUnit string
	BatteryMAh  float64
	BatteryV    float64
}

func (e *EnergyFlags) addFlags(fl *pflag.FlagSet, inferences bool) {
	fl.StringVar(&e.Kind, "energy", "none", "energy source: none, battery (power_supply sysfs) or rapl (powercap sysfs)")
	fl.DurationVar(&e.Interval, "energy-interval", energy.DefaultInterval, "energy sampling interval (at most 100ms)")
	if inferences {
		fl.IntVar(&e.Inferences, "energy-inferences", 1, "runs per energy round (slow fuel gauges need rounds of a few seconds)")
	}
	fl.StringVar(&e.Root, "sysfs", "/sys", "sysfs mount point to read energy from")
	fl.StringVar(&e.Supply, "battery-supply", "", "power supply to read (default: the first of type Battery)")
	fl.StringVar(&e.CurrentUnit, "battery-current-unit", "", "unit of current_now: uA or mA (default: detect)")
	fl.Float64Var(&e.BatteryMAh, "battery-mah", 0, "battery rating in mAh, for the percentage per 100 inferences (default: charge_full_design/energy_full_design)")
	fl.Float64Var(&e.BatteryV, "battery-volts", 0, "battery nominal voltage for --battery-mah or charge_full_design")
}

// meter opens the energy source; nil when the kind is none. notes collects
// what the user should know (no battery capacity).
func (e EnergyFlags) meter(notes *[]string) (*energy.Meter, *energy.Capacity, error) {
	if e.Kind == "none" || e.Kind == "" {
		return nil, nil, nil
	}
	o := energy.Options{Root: e.Root, Supply: e.Supply, CurrentUnit: e.CurrentUnit}
	src, err := energy.Open(e.Kind, o)
	if err != nil {
		return nil, nil, err
	}
	m := &energy.Meter{Sampler: energy.Sampler{Source: src, Interval: e.Interval}}
	var capacity *energy.Capacity
	switch {
	case e.BatteryMAh > 0:
		c, err := energy.RatedCapacity(e.BatteryMAh, e.BatteryV)
		if err != nil {
			return nil, nil, FlagErrorf("--battery-mah needs --battery-volts: %v", err)
		}
		capacity = &c
	case e.Kind == "battery":
		c, err := energy.BatteryCapacity(o, e.BatteryV)
		if err != nil {
			*notes = append(*notes, fmt.Sprintf("no battery percentage: %v", err))
		} else {
			capacity = &c
		}
	default:
		*notes = append(*notes, "no battery percentage: give --battery-mah and --battery-volts")
	}
	return m, capacity, nil
}

func (e EnergyFlags) validate() error {
	switch e.Kind {
	case "none", "battery", "rapl":
	default:
		return FlagErrorf("--energy %q: want none, battery or rapl", e.Kind)
	}
	if e.Interval <= 0 || e.Interval > energy.DefaultInterval {
		return FlagErrorf("--energy-interval %v: want at most %v (10 Hz or faster)", e.Interval, energy.DefaultInterval)
	}
	if e.Inferences < 0 {
		return FlagErrorf("--energy-inferences must be positive")
	}
	return nil
}

// llmBenchDynamicOption is llm_bench's choice of MNN's dynamic_option for
// a test with a prompt of n tokens (with its default -dyo 0): 0 for
// prompts of 1 to 300 tokens, 8 otherwise, which includes the decode-only
// tests (n = 0).
func llmBenchDynamicOption(n int) int {
	if n >= 1 && n <= 300 {
		return 0
	}
	return 8
}

// NewCmdBench measures prefill and decode speed, load time, memory and
// energy.
func NewCmdBench(f *Factory, runF func(*BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: f.IO, Probe: bench.System, Runtime: RuntimeOptions{Machine: f.Machine}, Tasks: f.Tasks}
	var pgs []string
	var profile string
	cmd := &cobra.Command{
		Use:   "bench --runtime R --model M",
		Short: "Measure prefill/decode speed, load time, memory and energy (llm_bench style)",
		Long: `Measure an in-process runtime (mnn, llamacpp) the way MNN's llm_bench does:
a synthetic prompt of repeated token ids, each test on a freshly loaded
engine, run --rep times after one discarded warm-up run, prefill and decode
tok/s reported as mean ± sd and as median. Also reports each test's load
time and peak resident-memory increment over the pre-load baseline (the
process's figure, and the engine's share without the Go runtime's growth),
the package size on disk and the load average.

Tests: -p N prefills N tokens; -n N decodes N tokens from a 1-token context;
--pg N,M prefills N tokens then decodes M on the same KV cache (repeatable).
With --pg alone, -p and -n default to off; otherwise they default to 512
and 128 (llm_bench's defaults). --profile names a published workload
(` + strings.Join(bench.ProfileNames(), ", ") + `); flags given with it
override its values. Use --threads 1 on a shared machine and compare numbers
only at equal threads and load.

For --runtime mnn each test's engine is configured as llm_bench configures
it: dynamic_option (MNN's activation-quantization hint, read at load) is 0
for a test whose prompt has 1 to 300 tokens and 8 otherwise, including
decode-only tests, unless --mnn-config sets it.

--energy battery|rapl makes every measured repetition an energy round: an
idle window as long as the previous run, then the run, both sampled at
10 Hz or faster; the report gives joules per inference over the idle
baseline (mean ± sd over the rounds) and, for a battery, the percentage of
its capacity that 100 inferences use.

--depth 0,512,2048,8192 runs every test with that many tokens already in
the KV cache (computed untimed first, as llama-bench's -d), giving prefill
and decode speed, peak memory and, with --speculative, the speedup at each
depth; --plot FILE draws them as SVG. For mnn a depth test loads its engine
with reuse_kv.

A run that stops early (interrupt, engine error) still writes the tests it
finished, marked INCOMPLETE (JSON: "incomplete"), and exits non-zero.

--prompts-from TASK times the task's real prompts instead (the first
--limit samples, rendered as run renders them, one request at a time after
one warm-up request, --rep passes, default 1) with the runtime opened as run
opens it; any runtime works, a server too. It reports time to first token,
time per output token and end-to-end latency: mean, p50, p90 and p99 with
95% order-statistic intervals (∞ where the sample is too small to bound).

The CPU frequencies (cpufreq scaling_cur_freq) and thermal zones under
--sysfs are recorded before each test and after each repetition, and the
first repetition's speed (cold) is reported beside the median of the last
half (steady state). --cooldown-to 40C waits before each test until the
hottest zone (or those --cooldown-zone names) is that cool, for at most
--cooldown-timeout.

--speculative MODE (mnn: MNN's speculative_type; llamacpp: draft, with
--draft-model) measures every test twice, without and with speculative
decoding, both decoding one engine step at a time, and reports the speedup,
the draft acceptance rate and the mean accepted length (tokens per target
forward pass).`,
		Example: `  $ pocketeval bench --runtime mnn --model /opt/models/pocket --pg 512,128 --threads 1
  $ pocketeval bench --runtime mnn --model /opt/models/pocket --profile pocket-energy --energy battery
  $ pocketeval bench --runtime mnn --model /opt/models/pocket --pg 256,64 --speculative lookahead
  $ pocketeval bench --runtime llamacpp --model model.gguf -p 256 -n 64 --rep 3 --json
  $ pocketeval bench --runtime llamacpp --model model.gguf -n 128 --speculative draft --draft-model draft.gguf
  $ pocketeval bench --runtime mnn --model /opt/models/pocket -p 512 -n 128 --depth 0,512,2048,8192 --plot depth.svg
  $ pocketeval bench --runtime mnn --model /opt/models/pocket --prompts-from gsm8k --limit 20 --cooldown-to 40C`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			changed := cmd.Flags().Changed
			if opts.Runtime.Name == "" {
				return FlagErrorf("--runtime is required")
			}
			// Real prompts need only Generate: any runtime, a server too.
			if opts.Device.PromptsFrom == "" {
				if err := opts.Runtime.Require("synthetic benchmarks", func(c drivers.Caps) bool { return c.Bench }); err != nil {
					return err
				}
			}
			if opts.Runtime.Model == "" {
				return FlagErrorf("--model is required")
			}
			for _, s := range pgs {
				pg, err := parsePG(s)
				if err != nil {
					return FlagErrorf("--pg %q: %v", s, err)
				}
				opts.Config.PG = append(opts.Config.PG, pg)
			}
			if profile != "" {
				p, ok := bench.LookupProfile(profile)
				if !ok {
					return FlagErrorf("--profile %q: want one of %s", profile, strings.Join(bench.ProfileNames(), ", "))
				}
				applyProfile(&opts.Config, &opts.Runtime, p, changed, len(pgs) > 0)
				opts.Notes = append(opts.Notes, fmt.Sprintf("profile %s: %s", p.Name, p.Description))
			} else if len(pgs) > 0 {
				if !changed("n-prompt") {
					opts.Config.Prompt = 0
				}
				if !changed("n-gen") {
					opts.Config.Gen = 0
				}
			}
			if err := opts.Device.apply(opts, changed); err != nil {
				return err
			}
			if opts.Config.Prompt < 0 || opts.Config.Gen < 0 {
				return FlagErrorf("-p and -n must not be negative")
			}
			if opts.Config.Reps <= 0 {
				return FlagErrorf("--rep must be positive, got %d", opts.Config.Reps)
			}
			if opts.Config.Prompt == 0 && opts.Config.Gen == 0 && len(opts.Config.PG) == 0 && opts.Device.PromptsFrom == "" {
				return FlagErrorf("nothing to measure: set -p, -n or --pg")
			}
			if c := opts.Config.Center; c != "mean" && c != "median" {
				return FlagErrorf("--center %q: want mean or median", c)
			}
			if err := opts.Energy.validate(); err != nil {
				return err
			}
			if opts.Energy.Kind != "none" && opts.Config.Reps < 3 {
				return FlagErrorf("--energy needs at least 3 measured rounds (--rep 3 or more), got %d", opts.Config.Reps)
			}
			if opts.Runtime.Workers == 0 {
				opts.Runtime.Workers = 1
			}
			if err := opts.Runtime.Validate(); err != nil {
				return err
			}
			if opts.Runtime.SpeculativeVerify {
				return FlagErrorf("--speculative-verify applies to run and serve; bench --speculative compares speeds")
			}
			if opts.Runtime.Speculative != "" {
				opts.Config.Speculative = true
				for _, t := range opts.Config.Tests() {
					if opts.Device.PromptsFrom != "" {
						break // the prompts are decoded with speculation
					}
					if t.NGen == 0 {
						return FlagErrorf("--speculative: test %s decodes nothing (use -n or --pg)", t.Name)
					}
				}
			}
			if opts.Open == nil {
				opts.Open = benchOpener(opts.Runtime)
			}
			if runF != nil {
				return runF(opts)
			}
			return benchRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&opts.Config.Prompt, "n-prompt", "p", bench.DefaultConfig.Prompt, "prefill-only test length in tokens (0: none)")
	fl.IntVarP(&opts.Config.Gen, "n-gen", "n", bench.DefaultConfig.Gen, "decode-only test length in tokens (0: none)")
	fl.StringArrayVar(&pgs, "pg", nil, "prefill+decode test `N,M` on a shared KV cache (repeatable)")
	fl.IntVar(&opts.Config.Reps, "rep", bench.DefaultConfig.Reps, "measured repetitions per test (one more warm-up run is discarded)")
	fl.StringVar(&opts.Config.Center, "center", "mean", "headline statistic of the speeds: mean (llm_bench) or median (the MNN-Pocket release)")
	fl.StringVar(&profile, "profile", "", "named workload: "+strings.Join(bench.ProfileNames(), ", "))
	fl.BoolVar(&opts.JSON, "json", false, "write the report as JSON")
	fl.BoolVar(&opts.Quiet, "quiet", false, "with --prompts-from: print no progress on stderr")
	opts.Energy.addFlags(fl, true)
	opts.Device.addFlags(fl)
	opts.Runtime.AddFlags(fl)
	return cmd
}

// applyProfile sets the profile's values where the user gave no flag.
func applyProfile(c *bench.Config, rt *RuntimeOptions, p bench.Profile, changed func(string) bool, havePG bool) {
	if !changed("n-prompt") {
		c.Prompt = p.Config.Prompt
	}
	if !changed("n-gen") {
		c.Gen = p.Config.Gen
	}
	if !havePG {
		c.PG = append([]bench.PG(nil), p.Config.PG...)
	}
	if !changed("rep") {
		c.Reps = p.Config.Reps
	}
	if !changed("center") {
		c.Center = p.Config.Center
	}
	if !changed("threads") {
		rt.Threads = p.Threads
	}
	c.Profile = p.Name
}

// benchOpener opens the runtime o names for one test (o is validated),
// with --speculative only on the speculative side. For mnn it sets
// llm_bench's dynamic_option for the test's prompt length (unless
// --mnn-config sets it) and speculative_type on the speculative side.
func benchOpener(o RuntimeOptions) bench.Opener {
	mf, ok := o.mnnFlags()
	if !ok {
		return func(ctx context.Context, req bench.OpenRequest) (runtime.Runtime, error) {
			side := o
			if !req.Speculative {
				side.Speculative = ""
			}
			return side.open(ctx)
		}
	}
	user, _ := mf.ConfigMap() // validated
	return func(ctx context.Context, req bench.OpenRequest) (runtime.Runtime, error) {
		if req.Prompts {
			return o.open(ctx) // as run opens it: MNN's defaults, the prefix cache as given
		}
		mo := mnnOptions(o, mnnBenchConfig(user, req, o.Speculative))
		if req.Test.Depth > 0 {
			mo.PrefixCache = "on" // the depth's cache is kept for the test (reuse_kv)
		}
		rt, err := mnn.Open(ctx, o.Model, mo)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return rt, nil
	}
}

// mnnFlags returns the mnn runtime's own flags when o selects mnn.
func (o *RuntimeOptions) mnnFlags() (*drivers.MNNFlags, bool) {
	_, f, err := o.driver()
	if err != nil {
		return nil, false
	}
	mf, ok := f.(*drivers.MNNFlags)
	return mf, ok
}

// mnnBenchConfig is the MNN config for one test: extra, plus llm_bench's
// dynamic_option for the test's prompt unless extra sets it, plus
// speculative_type on the speculative side.
func mnnBenchConfig(extra map[string]any, req bench.OpenRequest, speculative string) map[string]any {
	cfg := maps.Clone(extra)
	if cfg == nil {
		cfg = map[string]any{}
	}
	if _, ok := cfg["dynamic_option"]; !ok {
		cfg["dynamic_option"] = llmBenchDynamicOption(req.Test.NPrompt)
	}
	if req.Speculative {
		cfg["speculative_type"] = speculative
	}
	return cfg
}

func parsePG(s string) (bench.PG, error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return bench.PG{}, fmt.Errorf("want N,M")
	}
	p, err1 := strconv.Atoi(strings.TrimSpace(a))
	g, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || p <= 0 || g <= 0 {
		return bench.PG{}, fmt.Errorf("want two positive integers N,M")
	}
	return bench.PG{Prompt: p, Gen: g}, nil
}

func benchRun(ctx context.Context, opts *BenchOptions) error {
	m, capacity, err := opts.Energy.meter(&opts.Notes)
	if err != nil {
		if errors.Is(err, energy.ErrAbsent) || errors.Is(err, energy.ErrNotDischarging) {
			return fmt.Errorf("bench --energy %s: %w", opts.Energy.Kind, err)
		}
		return err
	}
	if m != nil {
		opts.Config.Energy = &bench.EnergyConfig{Meter: m, Inferences: opts.Energy.Inferences, Battery: capacity}
	}
	if opts.Config.Thermal == nil {
		opts.Config.Thermal = &bench.Thermal{Root: opts.Energy.Root} // recorded where the device has any
	}
	if opts.Device.PromptsFrom != "" {
		if opts.Config.Prompts, err = opts.Device.prompts(ctx, opts.Tasks); err != nil {
			return err
		}
		prog := progressFor(opts.IO, opts.Quiet || opts.JSON, "timing "+opts.Device.PromptsFrom+" prompts", "requests")
		opts.Config.Prompts.Progress = func(done, total int) {
			if done == 1 {
				prog.Start(total, 0)
			}
			prog.Done(opts.Device.PromptsFrom)
			if done == total {
				prog.Finish()
			}
		}
	}
	for _, n := range opts.Notes {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", n)
	}
	rep, err := bench.Run(ctx, opts.Open, opts.Runtime.Model, opts.Config, opts.Probe)
	if err != nil {
		if rep == nil || len(rep.Rows) == 0 {
			return err
		}
		// The finished tests are kept: the report (and plot) is written,
		// marked incomplete, and the command still fails with err.
		if perr := opts.Device.writePlot(rep); perr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "note: no plot of the incomplete run: %v\n", perr)
		}
		if werr := writeBenchReport(opts, rep); werr != nil {
			return errors.Join(err, werr)
		}
		fmt.Fprintf(opts.IO.ErrOut, "bench: INCOMPLETE: %s\n", rep.Incomplete)
		return err
	}
	if err := opts.Device.writePlot(rep); err != nil {
		return err
	}
	return writeBenchReport(opts, rep)
}

func writeBenchReport(opts *BenchOptions, rep *bench.Report) error {
	if opts.JSON {
		return writeJSON(opts.IO, rep)
	}
	return bench.WriteMarkdown(opts.IO.Out, rep)
}
