package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// DeviceFlags are bench's on-device flags: context depths, the thermal
// cool-down, and latency on a task's real prompts.
type DeviceFlags struct {
	Depths []int
	// Plot is the SVG file the depth sweep is drawn into ("": none).
	Plot            string
	CooldownTo      string
	CooldownZone    string
	CooldownTimeout time.Duration
	// PromptsFrom is the task whose prompts are timed ("": none), with
	// the run-like flags that select and render them.
	PromptsFrom string
	Limit       int
	MaxTokens   int
	DataDir     string
	Seed        int64
}

func (d *DeviceFlags) addFlags(fl *pflag.FlagSet) {
	fl.IntSliceVar(&d.Depths, "depth", nil, "run every test at each `N,M,...` tokens already in the KV cache, e.g. 0,512,2048,8192 (llama-bench's -d)")
	fl.StringVar(&d.Plot, "plot", "", "write the depth sweep's speed and memory curves to this SVG `file`")
	fl.StringVar(&d.CooldownTo, "cooldown-to", "", "before each test, wait until the hottest thermal zone is at or below this `temperature` (e.g. 40C)")
	fl.StringVar(&d.CooldownZone, "cooldown-zone", "", "wait only on thermal zones whose type contains this `text` (e.g. cpu)")
	fl.DurationVar(&d.CooldownTimeout, "cooldown-timeout", 10*time.Minute, "longest wait for --cooldown-to; the test then runs warm, with a note")
	fl.StringVar(&d.PromptsFrom, "prompts-from", "", "time a `task`'s real prompts, rendered as run renders them (time to first token, per-token and end-to-end latency)")
	fl.IntVar(&d.Limit, "limit", 10, "with --prompts-from: the first N samples of the task (0 = all)")
	fl.IntVar(&d.MaxTokens, "max-tokens", 0, "with --prompts-from: maximum new tokens per response (0 = the task's default)")
	fl.StringVar(&d.DataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "with --prompts-from: dataset directory (default $POCKETEVAL_DATA, else the pocketeval cache)")
	fl.Int64Var(&d.Seed, "seed", 1234, "with --prompts-from: the run's seed (few-shot sampling, sampled decoding)")
}

// apply checks the flags and sets what they select in opts.Config.
// changed reports whether the user gave a flag.
func (d *DeviceFlags) apply(opts *BenchOptions, changed func(string) bool) error {
	c := &opts.Config
	for _, n := range d.Depths {
		if n < 0 {
			return FlagErrorf("--depth %d: depths must not be negative", n)
		}
	}
	if len(d.Depths) > 0 {
		c.Depths = slices.Clone(d.Depths)
	}
	if d.Plot != "" && len(slices.Compact(slices.Sorted(slices.Values(d.Depths)))) < 2 {
		return FlagErrorf("--plot draws a depth sweep: give --depth with two depths or more")
	}
	if d.CooldownTo != "" {
		target, err := bench.ParseCelsius(d.CooldownTo)
		if err != nil {
			return FlagErrorf("--cooldown-to: %v", err)
		}
		if d.CooldownTimeout <= 0 {
			return FlagErrorf("--cooldown-timeout must be positive")
		}
		cd := &bench.Cooldown{TargetC: target, Zone: d.CooldownZone, Timeout: d.CooldownTimeout}
		c.Thermal = &bench.Thermal{Root: opts.Energy.Root}
		if err := cd.Check(*c.Thermal); err != nil {
			return FlagErrorf("--cooldown-to: %v (--sysfs names the sysfs root)", err)
		}
		cd.Progress = cooldownProgress(opts.IO, target)
		c.Cooldown = cd
	} else if changed("cooldown-zone") {
		return FlagErrorf("--cooldown-zone needs --cooldown-to")
	}
	if d.PromptsFrom == "" {
		for _, f := range []string{"limit", "max-tokens", "data-dir", "seed"} {
			if changed(f) {
				return FlagErrorf("--%s applies to --prompts-from", f)
			}
		}
		return nil
	}
	switch {
	case changed("n-prompt") || changed("n-gen") || len(c.PG) > 0 || len(d.Depths) > 0:
		return FlagErrorf("--prompts-from times a task's prompts: it replaces -p, -n, --pg and --depth")
	case opts.Energy.Kind != "none":
		return FlagErrorf("--prompts-from does not measure energy: use the synthetic tests (--pg) with --energy")
	case d.Limit < 0 || d.MaxTokens < 0:
		return FlagErrorf("--limit and --max-tokens must not be negative")
	}
	c.Prompt, c.Gen = 0, 0
	if !changed("rep") {
		c.Reps = 1
	}
	if d.DataDir == "" {
		d.DataDir = DefaultDataDir()
	}
	return nil
}

// cooldownProgress prints the temperature every 10 s of waiting.
func cooldownProgress(io *IOStreams, target float64) func(bench.Zone, time.Duration) {
	var last time.Duration = -time.Hour
	return func(z bench.Zone, waited time.Duration) {
		if waited-last < 10*time.Second {
			return
		}
		last = waited
		fmt.Fprintf(io.ErrOut, "cooling down: %s (%s) at %.1f°C, waiting for %g°C (%.0f s so far)\n", z.Type, z.Zone, z.C, target, waited.Seconds())
	}
}

// prompts renders the task's generation requests as `run` would, with
// the model's chat template applied by the runtime (chat requests).
func (d *DeviceFlags) prompts(ctx context.Context, all func() []evals.Task) (*bench.Prompts, error) {
	sel, err := registry.Select(all(), []string{d.PromptsFrom})
	if err != nil {
		return nil, &FlagError{err: fmt.Errorf("--prompts-from: %w", err)}
	}
	o := runner.Options{Tasks: sel.Tasks, DataDir: d.DataDir, Limit: d.Limit, NumFewshot: -1, Chat: true, Mode: "gen",
		Gen: runtime.GenConfig{MaxTokens: d.MaxTokens, Seed: d.Seed}}
	reqs, err := runner.Prompts(ctx, o)
	if err != nil {
		var missing *evals.MissingDataError
		var de *evals.DataError
		var se *results.SampleError
		if errors.As(err, &missing) {
			err = fmt.Errorf("%w\n%s", err, missingDataHint(missing.Task, d.DataDir, "--data-dir"))
		}
		if errors.As(err, &missing) || errors.As(err, &de) || errors.As(err, &se) {
			return nil, &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--prompts-from %s: %w", d.PromptsFrom, err)}
		}
		return nil, &FlagError{err: fmt.Errorf("--prompts-from %s: %w", d.PromptsFrom, err)}
	}
	return &bench.Prompts{Task: d.PromptsFrom, Requests: reqs}, nil
}

// writePlot draws the depth sweep into d.Plot.
func (d *DeviceFlags) writePlot(rep *bench.Report) error {
	if d.Plot == "" {
		return nil
	}
	f, err := os.Create(d.Plot)
	if err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	if err := bench.WriteDepthSVG(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
