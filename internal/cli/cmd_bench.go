package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/drivers"
	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// benchCommands returns the bench area's commands.
func benchCommands(f *Factory) []*cobra.Command { return []*cobra.Command{NewCmdBench(f, nil)} }

// BenchOptions are the options of `pocketeval bench`.
type BenchOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
	Config  bench.Config
	JSON    bool
	// Probe reads memory and load average; bench.System by default.
	Probe bench.Probe
	// Open opens the runtime; OpenRuntime by default.
	Open func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error)
	// MNNConfig holds extra MNN config keys merged before load (--runtime
	// mnn only). Unless it sets dynamic_option, bench applies llm_bench's
	// rule: 8 when the longest test prompt exceeds 300 tokens, else 0.
	MNNConfig map[string]any
}

// llmBenchDynamicOption is llm_bench's choice of MNN's dynamic_option for
// a prompt of n tokens (with its default -dyo 0): 8 above 300 tokens.
func llmBenchDynamicOption(n int) int {
	if n > 300 {
		return 8
	}
	return 0
}

// NewCmdBench measures prefill and decode speed, load time and memory.
func NewCmdBench(f *Factory, runF func(*BenchOptions) error) *cobra.Command {
	opts := &BenchOptions{IO: f.IO, Probe: bench.System, Open: OpenRuntime}
	var pgs []string
	var mnnConfig string
	cmd := &cobra.Command{
		Use:   "bench --runtime R --model M",
		Short: "Measure prefill/decode speed, load time and memory (llm_bench style)",
		Long: `Measure an in-process runtime (mnn, llamacpp) the way MNN's llm_bench does:
a synthetic prompt of repeated token ids, each test run --rep times after one
discarded warm-up run, prefill and decode tok/s reported as mean ± sd and as
median. Also reports the load time, the peak resident-memory increment over
the pre-load baseline, the package size on disk and the load average.

Tests: -p N prefills N tokens; -n N decodes N tokens from a 1-token context;
--pg N,M prefills N tokens then decodes M on the same KV cache (repeatable).
With --pg alone, -p and -n default to off; otherwise they default to 512
and 128 (llm_bench's defaults). Use --threads 1 on a shared machine and
compare numbers only at equal threads and load.

For --runtime mnn the engine is configured as llm_bench configures it:
dynamic_option (MNN's activation-quantization hint, read at load) is 8 when
the longest test prompt exceeds 300 tokens and 0 otherwise, unless
--mnn-config sets it; the report's runtime line shows the value used.`,
		Example: `  $ pocketeval bench --runtime mnn --model /opt/models/pocket --pg 512,128 --threads 1
  $ pocketeval bench --runtime llamacpp --model model.gguf -p 256 -n 64 --rep 3 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Runtime.Name == "" {
				return FlagErrorf("--runtime is required")
			}
			if err := opts.Runtime.Require("synthetic benchmarks", func(c drivers.Caps) bool { return c.Bench }); err != nil {
				return err
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
			if len(pgs) > 0 {
				if !cmd.Flags().Changed("n-prompt") {
					opts.Config.Prompt = 0
				}
				if !cmd.Flags().Changed("n-gen") {
					opts.Config.Gen = 0
				}
			}
			if opts.Config.Prompt < 0 || opts.Config.Gen < 0 {
				return FlagErrorf("-p and -n must not be negative")
			}
			if opts.Config.Reps <= 0 {
				return FlagErrorf("--rep must be positive, got %d", opts.Config.Reps)
			}
			if opts.Config.Prompt == 0 && opts.Config.Gen == 0 && len(opts.Config.PG) == 0 {
				return FlagErrorf("nothing to measure: set -p, -n or --pg")
			}
			if opts.Runtime.Workers == 0 {
				opts.Runtime.Workers = 1
			}
			if mnnConfig != "" {
				if opts.Runtime.Name != "mnn" {
					return FlagErrorf("--mnn-config applies only to --runtime mnn")
				}
				if err := json.Unmarshal([]byte(mnnConfig), &opts.MNNConfig); err != nil {
					return FlagErrorf("--mnn-config: want a JSON object: %v", err)
				}
			}
			if opts.Runtime.Name == "mnn" {
				if opts.MNNConfig == nil {
					opts.MNNConfig = map[string]any{}
				}
				if _, ok := opts.MNNConfig["dynamic_option"]; !ok {
					longest := 0
					for _, t := range opts.Config.Tests() {
						longest = max(longest, t.NPrompt)
					}
					opts.MNNConfig["dynamic_option"] = llmBenchDynamicOption(longest)
				}
				extra := opts.MNNConfig
				opts.Open = func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
					return mnn.Open(ctx, o.Model, mnnOptions(o, extra))
				}
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
	fl.BoolVar(&opts.JSON, "json", false, "write the report as JSON")
	fl.StringVar(&mnnConfig, "mnn-config", "", "extra MNN config `JSON` merged before load, e.g. '{\"attention_mode\":10}' (default dynamic_option follows llm_bench: 8 above 300 prompt tokens)")
	opts.Runtime.AddFlags(fl)
	return cmd
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
	open := func(ctx context.Context) (runtime.Runtime, error) { return opts.Open(ctx, opts.Runtime) }
	rep, err := bench.Run(ctx, open, opts.Runtime.Model, opts.Config, opts.Probe)
	if err != nil {
		return err
	}
	if opts.JSON {
		return bench.WriteJSON(opts.IO.Out, rep)
	}
	return bench.WriteMarkdown(opts.IO.Out, rep)
}
