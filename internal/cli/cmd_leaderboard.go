package cli

import "github.com/spf13/cobra"

// leaderboardCommands returns the leaderboard area's commands.
func leaderboardCommands(f *Factory) []*cobra.Command { return nil }
