package cli

import "github.com/spf13/cobra"

// serveCommands returns the serve area's commands.
func serveCommands(f *Factory) []*cobra.Command { return nil }
