package cli

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/energy"
	"github.com/pocketeval/pocketeval/runtime"
)

// EnergyOptions are the options of `pocketeval energy`.
type EnergyOptions struct {
	IO     *IOStreams
	Energy EnergyFlags
	// Rounds is the number of measured rounds (at least 3).
	Rounds int
	// Inferences is how many inferences one run of the command performs.
	Inferences int
	JSON       bool
	Command    []string
	Probe      bench.Probe
	// Exec runs the command; nil runs it with exec.CommandContext, its
	// output on stderr.
	Exec func(ctx context.Context, argv []string) error
}

// NewCmdEnergy measures the energy of an external workload, for devices
// where the engine runs in another program (an app, MNN's llm_bench).
func NewCmdEnergy(f *Factory, runF func(*EnergyOptions) error) *cobra.Command {
	opts := &EnergyOptions{IO: f.IO, Probe: bench.System}
	cmd := &cobra.Command{
		Use:   "energy --energy battery|rapl [flags] -- COMMAND [ARGS...]",
		Short: "Measure the incremental energy of a command (e.g. llm_bench on a phone)",
		Long: `Run COMMAND once to warm up and learn its duration, then --rounds times,
each time after an idle window of the same duration, sampling the energy
source at 10 Hz or faster. The report gives joules per inference over the
idle baseline (a round's energy divided by --inferences, the inferences one
run of COMMAND performs), mean ± sd over the rounds, and for a battery the
percentage of its capacity that 100 inferences use. The JSON output has the
shape of bench --json, so gate budgets read it the same way.

COMMAND's own output goes to stderr. On a phone, push a static pocketeval
(see docs/device.md), unplug the charger (adb over Wi-Fi) and run this in
adb shell around the phone's llm_bench.`,
		Example: `  $ pocketeval energy --energy battery --inferences 2 --json -- ./llm_bench -m $PWD/config.json -t 4 -pg 1024,128 -p 0 -n 0 -rep 1 -load false`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 {
				return FlagErrorf("put the command after --, e.g. pocketeval energy --energy battery -- ./llm_bench ...")
			}
			opts.Command = args
			if err := opts.Energy.validate(); err != nil {
				return err
			}
			if opts.Energy.Kind == "none" {
				return FlagErrorf("--energy battery or --energy rapl is required")
			}
			if opts.Rounds < 3 {
				return FlagErrorf("--rounds must be at least 3, got %d", opts.Rounds)
			}
			if opts.Inferences < 1 {
				return FlagErrorf("--inferences must be positive, got %d", opts.Inferences)
			}
			if runF != nil {
				return runF(opts)
			}
			return energyRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	opts.Energy.addFlags(fl, false)
	fl.IntVar(&opts.Rounds, "rounds", 3, "measured rounds (after one warm-up run)")
	fl.IntVar(&opts.Inferences, "inferences", 1, "inferences one run of the command performs")
	fl.BoolVar(&opts.JSON, "json", false, "write the report as JSON (the shape of bench --json)")
	return cmd
}

func energyRun(ctx context.Context, opts *EnergyOptions) error {
	var notes []string
	m, capacity, err := opts.Energy.meter(&notes)
	if err != nil {
		if errors.Is(err, energy.ErrAbsent) || errors.Is(err, energy.ErrNotDischarging) {
			return fmt.Errorf("energy --energy %s: %w", opts.Energy.Kind, err)
		}
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", n)
	}
	run := opts.Exec
	if run == nil {
		run = func(ctx context.Context, argv []string) error {
			c := exec.CommandContext(ctx, argv[0], argv[1:]...)
			c.Stdout, c.Stderr = opts.IO.ErrOut, opts.IO.ErrOut
			return c.Run()
		}
	}
	rep := &bench.Report{
		Runtime: runtime.Info{Name: "command", Model: strings.Join(opts.Command, " ")},
		Center:  "mean", Reps: opts.Rounds, CPUs: 0,
	}
	if c, ok := opts.Probe.(bench.CPUModeler); ok {
		rep.CPU = c.CPUModel()
	}
	if la, err := opts.Probe.LoadAvg(); err == nil {
		rep.LoadAvg = la
	}
	timed := func() (time.Duration, error) {
		start := time.Now()
		if err := run(ctx, opts.Command); err != nil {
			return 0, fmt.Errorf("energy: run %s: %w", opts.Command[0], err)
		}
		return time.Since(start), nil
	}
	last, err := timed() // warm-up
	if err != nil {
		return err
	}
	var rounds []energy.Round
	var warns []string
	for i := 0; i < opts.Rounds; i++ {
		r, w, err := m.Round(ctx, last, func() error {
			d, err := timed()
			last = d
			return err
		})
		if err != nil {
			return fmt.Errorf("energy round %d: %w", i+1, err)
		}
		rounds = append(rounds, r)
		warns = append(warns, w...)
	}
	res := energy.Summarize(m.Source.Describe(), m.Interval, opts.Inferences, rounds, capacity)
	res.Warnings = append(warns, res.Warnings...)
	rep.Rows = []bench.Row{{Test: bench.Test{Name: "command"}, Energy: &res}}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	if la, err := opts.Probe.LoadAvg(); err == nil {
		rep.LoadAvgEnd = la
	}
	if opts.JSON {
		return writeJSON(opts.IO, rep)
	}
	return bench.WriteMarkdown(opts.IO.Out, rep)
}
