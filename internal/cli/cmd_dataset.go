package cli

import "github.com/spf13/cobra"

// datasetCommands returns the dataset area's commands.
func datasetCommands(f *Factory) []*cobra.Command { return nil }
