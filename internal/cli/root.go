// Package cli holds pocketeval's cobra commands. Commands are thin: they
// parse and validate flags, build options, call packages and print. Cobra
// appears nowhere else.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/runtime"
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
	// OpenRuntime opens a runtime (OpenRuntime by default).
	OpenRuntime func(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error)
}

// NewFactory returns the production factory.
func NewFactory() *Factory {
	return &Factory{IO: System(), Tasks: registry.All, Now: time.Now, Args: os.Args, OpenRuntime: OpenRuntime}
}

// Main runs pocketeval with os.Args and returns the process exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := NewFactory()
	return Execute(ctx, f, os.Args[1:])
}

// Execute runs the command line args and maps the error to an exit code.
func Execute(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ec *ExitCodeError
	if errors.As(err, &ec) {
		if ec.Err != nil {
			fmt.Fprintf(f.IO.ErrOut, "error: %v\n", ec.Err)
		}
		return ec.Code
	}
	if errors.Is(err, ErrCancelled) || errors.Is(err, context.Canceled) {
		fmt.Fprintf(f.IO.ErrOut, "interrupted: %v\n", err)
		return ExitCancelled
	}
	var fe *FlagError
	if errors.As(err, &fe) || isCobraUsageError(err) {
		fmt.Fprintf(f.IO.ErrOut, "error: %v\nRun 'pocketeval %s --help' for usage.\n", err, commandPath(root, args))
		return ExitUsage
	}
	fmt.Fprintf(f.IO.ErrOut, "error: %v\n", err)
	return ExitError
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "pocketeval",
		Short: "Evaluate small on-device language models reproducibly",
		Long: `pocketeval reproduces, compares and gates the quality, speed and memory of
small language models (MNN, llama.cpp, any OpenAI-compatible server, or saved
predictions) on standard benchmarks with conformant scoring.`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{err: err} })
	root.AddCommand(NewCmdRun(f, nil), NewCmdTasks(f, nil), NewCmdVersion(f))
	for _, add := range []func(*Factory) []*cobra.Command{
		serveCommands, benchCommands, sandboxCommands, leaderboardCommands, datasetCommands,
	} {
		root.AddCommand(add(f)...)
	}
	return root
}

func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
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
