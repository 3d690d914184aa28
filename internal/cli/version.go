package cli

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is set at link time (-ldflags "-X .../internal/cli.Version=v1.2.3");
// otherwise the module version or "devel".
var Version = ""

// BuildInfo is what `pocketeval version` reports and manifests record.
type BuildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"vcs_revision,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// ReadBuildInfo returns the binary's version and VCS revision.
func ReadBuildInfo() BuildInfo {
	bi := BuildInfo{Version: Version, GoVersion: goruntime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		if bi.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			bi.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Revision = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	if bi.Version == "" {
		bi.Version = "devel"
	}
	return bi
}

// NewCmdVersion prints the version.
func NewCmdVersion(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print pocketeval's version and VCS revision",
		Example: "  $ pocketeval version\n  $ pocketeval version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bi := ReadBuildInfo()
			if asJSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(bi)
			}
			rev := bi.Revision
			if rev == "" {
				rev = "unknown"
			}
			if bi.Modified {
				rev += "+dirty"
			}
			_, err := fmt.Fprintf(f.IO.Out, "pocketeval %s (revision %s, %s)\n", bi.Version, rev, bi.GoVersion)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	return cmd
}
