package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/sandbox"
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
	cmd.AddCommand(NewCmdSandboxRun(f, nil), NewCmdSandboxProbe(f, nil))
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
	Timeout  time.Duration // CPU-time limit; wall clock is 3x
	Wall     time.Duration
	Memory   int64
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

--timeout is the CPU-time limit; the wall-clock limit is three times it
(or --wall), so verdicts do not flip when the machine is loaded.

Exit status: 0 pass, 1 fail, 124 timeout, 125 error (killed by the output
cap, out of memory, a signal, or the sandbox failed to set up), 2 usage.`,
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
			if opts.Wall < 0 {
				return FlagErrorf("--wall must be positive, got %s", opts.Wall)
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
	fl.DurationVar(&opts.Timeout, "timeout", 10*time.Second, "CPU-time limit (the wall-clock limit is 3x this)")
	fl.DurationVar(&opts.Wall, "wall", 0, "wall-clock limit (default 3x --timeout)")
	fl.StringVar(&memory, "memory", "", "memory limit, e.g. 512MiB, 1G (default 1GiB)")
	fl.BoolVar(&opts.Unsafe, "unsafe-no-sandbox", false, "run even below the minimum isolation (never silently)")
	fl.BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	fl.StringVar(&opts.Python, "python", "", "Python interpreter (default python3 from PATH, shims resolved)")
	return cmd
}

func sandboxRun(ctx context.Context, opts *SandboxRunOptions) error {
	var src []byte
	var err error
	if opts.File == "-" {
		src, err = io.ReadAll(opts.IO.In)
	} else {
		src, err = os.ReadFile(opts.File)
	}
	if err != nil {
		return fmt.Errorf("read program: %w", err)
	}
	ex, layers, closeFn, err := opts.Executor(sandbox.Config{Unsafe: opts.Unsafe, Workers: 1, Python: opts.Python})
	if err != nil {
		return &ExitCodeError{Code: exitSandboxError, Err: err}
	}
	defer closeFn()
	if layers.Unsafe {
		fmt.Fprintf(opts.IO.ErrOut, "warning: running below the minimum isolation (--unsafe-no-sandbox)\n%s", layers)
	}
	res, runErr := ex.Run(ctx, sandbox.Program{Source: string(src), Limits: sandbox.Limits{
		CPUTime: opts.Timeout, Timeout: opts.Wall, MemoryBytes: opts.Memory,
	}})
	if runErr != nil && errors.Is(runErr, context.Canceled) {
		return ErrCancelled
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
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
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ls); err != nil {
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
