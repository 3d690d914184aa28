package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// RunOptions are the options of `pocketeval run`.
type RunOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
}

// NewCmdRun evaluates a model on tasks.
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Evaluate a model on benchmark tasks",
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("not implemented yet")
		},
	}
	opts.Runtime.AddFlags(cmd.Flags())
	return cmd
}
