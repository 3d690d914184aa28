package cli

import "github.com/spf13/cobra"

// sandboxCommands returns the sandbox area's commands.
func sandboxCommands(f *Factory) []*cobra.Command { return nil }
