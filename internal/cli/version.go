package cli

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/results"
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

// Results is the build info as result manifests record it.
func (bi BuildInfo) Results() results.BuildInfo {
	return results.BuildInfo{Version: bi.Version, Revision: bi.Revision, Modified: bi.Modified, GoVersion: bi.GoVersion}
}

// VersionOptions are the options of `pocketeval version`.
type VersionOptions struct {
	IO   *IOStreams
	JSON bool // --json
	// BuildInfo reads the binary's version (ReadBuildInfo by default).
	BuildInfo func() BuildInfo
}

// NewCmdVersion prints the version.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, BuildInfo: ReadBuildInfo}
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print pocketeval's version and VCS revision",
		Example: "  $ pocketeval version\n  $ pocketeval version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "machine-readable output")
	return cmd
}

func versionRun(opts *VersionOptions) error {
	bi := opts.BuildInfo()
	if opts.JSON {
		return writeJSON(opts.IO, bi)
	}
	rev := bi.Revision
	if rev == "" {
		rev = "unknown"
	}
	if bi.Modified {
		rev += "+dirty"
	}
	_, err := fmt.Fprintf(opts.IO.Out, "pocketeval %s (revision %s, %s)\n", bi.Version, rev, bi.GoVersion)
	return err
}
