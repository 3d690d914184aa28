package cli

import "github.com/spf13/cobra"

// benchCommands returns the bench area's commands.
func benchCommands(f *Factory) []*cobra.Command { return nil }
