// Package cli holds pocketeval's cobra commands. Commands are thin: they
// parse and validate flags, build options, call packages and print. Cobra
// appears nowhere else.
package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/regfile"
)

// Factory holds the dependencies commands share. Tests build their own.
type Factory struct {
	IO *IOStreams
	// Tasks lists the known tasks (registry.All by default).
	Tasks func() []evals.Task
	// Now is the clock.
	Now func() time.Time
	// Args is the full command line, recorded in manifests.
	Args []string
	// Runtimes lists the runtimes commands can open (drivers.All by
	// default).
	Runtimes func() []drivers.Driver
	// Machine is the capacity runtime settings are checked against
	// (--threads, --concurrency, --ctx-size); nil means this machine.
	Machine *drivers.Machine
}

// runtimes returns the runtimes to choose from (nil: drivers.All).
func (f *Factory) runtimes() []drivers.Driver {
	if f.Runtimes == nil {
		return nil
	}
	return f.Runtimes()
}

// NewFactory returns the production factory.
func NewFactory() *Factory {
	return &Factory{IO: System(), Tasks: registry.All, Now: time.Now, Args: os.Args, Runtimes: drivers.All}
}

// Main runs pocketeval with os.Args and returns the process exit code.
func Main() int {
	f := NewFactory()
	ctx, stop := interruptContext(f.IO.ErrOut)
	defer stop()
	return Execute(ctx, f, os.Args[1:])
}

// Execute runs the command line args and maps the error to an exit code.
func Execute(ctx context.Context, f *Factory, args []string) int {
	root := rootFor(f, args)
	root.SetArgs(args)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	// Find reports an unknown command before anything runs (with cobra's
	// own help and completion commands in the tree).
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	_, _, err := root.Find(args)
	if err != nil {
		err = &FlagError{err: err}
	} else {
		err = root.ExecuteContext(ctx)
	}
	if err == nil {
		return ExitOK
	}
	var ec *ExitCodeError
	if errors.As(err, &ec) {
		if ec.Err != nil {
			fmt.Fprintf(f.IO.ErrOut, "error: %s\n", withAdvice(ec.Err))
		}
		return ec.Code
	}
	if errors.Is(err, ErrCancelled) || errors.Is(err, context.Canceled) {
		fmt.Fprintf(f.IO.ErrOut, "interrupted: %v\n", err)
		return ExitCancelled
	}
	var fe *FlagError
	if errors.As(err, &fe) {
		fmt.Fprintf(f.IO.ErrOut, "error: %s\nRun 'pocketeval %s --help' for usage.\n", withAdvice(err), commandPath(root, args))
		return ExitUsage
	}
	fmt.Fprintf(f.IO.ErrOut, "error: %s\n", withAdvice(err))
	if regfile.IsUnusable(err) { // an input file refused before use
		return ExitUsage
	}
	return ExitError
}

func init() {
	cobra.AddTemplateFunc("pocketevalVersion", func() string { return versionText(ReadBuildInfo(), FindEngines()) })
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command { return newRoot(f, topCommands) }

// topCommand is one entry of the tree's first level: the names its
// commands answer to and the function that builds them.
type topCommand struct {
	names []string
	build func(*Factory) []*cobra.Command
}

// one wraps a constructor of a single command.
func one(build func(*Factory) *cobra.Command) func(*Factory) []*cobra.Command {
	return func(f *Factory) []*cobra.Command { return []*cobra.Command{build(f)} }
}

// topCommands is the first level of the tree, in the order it is built.
// The names are those of the commands each entry builds (cobra's Use
// names; no command has aliases): TestTopCommandNames holds them to the
// commands built.
var topCommands = []topCommand{
	{[]string{"run"}, one(func(f *Factory) *cobra.Command { return NewCmdRun(f, nil) })},
	{[]string{"tasks"}, one(func(f *Factory) *cobra.Command { return NewCmdTasks(f, nil) })},
	{[]string{"version"}, one(func(f *Factory) *cobra.Command { return NewCmdVersion(f, nil) })},
	{[]string{"bfcl-score"}, one(func(f *Factory) *cobra.Command { return NewCmdBFCLScore(f, nil) })},
	{[]string{"serve"}, serveCommands},
	{[]string{"bench", "energy"}, benchCommands},
	{[]string{"sandbox"}, sandboxCommands},
	{[]string{"compare", "gate", "leaderboard", "suite"}, leaderboardCommands},
	{[]string{"datasets", "models", "merge", "verify"}, datasetCommands},
	{[]string{"fidelity"}, fidelityCommands},
}

// rootFor returns the tree a command line needs. When its first word
// names a command of the first level, only that entry's commands are
// built: every command's flags, help texts and closures are allocated
// and their code and strings paged in when they are built, which cost a
// `run` replay of IFEval about a tenth of its CPU time (a fifth of its
// page faults) for commands it never runs. Anything else (help, a flag
// first, completion, an unknown or misspelt command, whose output lists
// or searches every command) gets the whole tree, as does a command line
// the partial tree would not resolve to a command of its own.
func rootFor(f *Factory, args []string) *cobra.Command {
	if len(args) > 0 && partialTrees {
		for _, e := range topCommands {
			if !slices.Contains(e.names, args[0]) {
				continue
			}
			root := newRoot(f, []topCommand{e})
			if c, _, err := root.Find(args); err == nil && c != root {
				return root
			}
			break
		}
	}
	return NewCmdRoot(f)
}

// partialTrees lets rootFor build partial trees (tests compare them with
// the whole tree's).
var partialTrees = true

// newRoot builds the root command with the given entries of the first
// level.
func newRoot(f *Factory, entries []topCommand) *cobra.Command {
	root := &cobra.Command{
		Use:   "pocketeval",
		Short: "Evaluate small on-device language models reproducibly",
		Long: `pocketeval reproduces, compares and gates the quality, speed and memory of
small language models (MNN, llama.cpp, any OpenAI-compatible server, or saved
predictions) on standard benchmarks with conformant scoring.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// Every command: a number flag must be finite, before anything
		// is created (no command defines its own PersistentPreRunE).
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error { return finiteFlags(cmd.Flags()) },
		Version:           ReadBuildInfo().Version,
	}
	// --version prints what `pocketeval version` does; the engines are
	// looked for only when it is asked.
	root.SetVersionTemplate("{{pocketevalVersion}}")
	root.SetFlagErrorFunc(flagError)
	for _, e := range entries {
		root.AddCommand(e.build(f)...)
	}
	usageArgs(root)
	return root
}

// finiteFlags refuses a floating-point flag set to NaN or an infinity
// (strconv accepts "nan" and "inf"): --temperature nan would otherwise
// reach JSON encoding halfway through a run.
func finiteFlags(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil || (f.Value.Type() != "float64" && f.Value.Type() != "float32") {
			return
		}
		if x, perr := strconv.ParseFloat(f.Value.String(), 64); perr == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
			err = FlagErrorf("--%s %s: must be a finite number", f.Name, f.Value.String())
		}
	})
	return err
}

// usageArgs makes every command's argument errors (a wrong number of
// arguments) usage errors, as flag errors already are through
// SetFlagErrorFunc, so Execute maps them to exit 2 by type.
func usageArgs(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return &FlagError{err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

func commandPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == root {
		return ""
	}
	p := c.CommandPath()
	if len(p) > len("pocketeval ") {
		return p[len("pocketeval "):]
	}
	return ""
}
