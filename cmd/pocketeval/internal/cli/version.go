package cli

import (
	_ "embed"
	"fmt"
	"io"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// Version is set at link time (-ldflags "-X .../internal/cli.Version=v1.2.3");
// otherwise the module version or "devel".
var Version = ""

// archiveRevision is revision.txt: "$Format:%H$" in a checkout, the commit
// itself in a source archive made by git archive (.gitattributes marks the
// file export-subst). It is the revision of a build Go did not stamp.
//
//go:embed revision.txt
var archiveRevision string

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
	if bi.Revision == "" {
		bi.Revision = substitutedRevision(archiveRevision)
	}
	if bi.Version == "" {
		bi.Version = "devel"
	}
	return bi
}

// substitutedRevision returns the commit git archive wrote into
// revision.txt, or "" while the file still holds its placeholder.
func substitutedRevision(s string) string {
	s = strings.TrimSpace(s)
	if len(s) < 7 || strings.HasPrefix(s, "$Format") {
		return ""
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return s
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
	// Engines finds the inference engines (FindEngines by default).
	Engines func() []Engine
}

// Engine is an inference engine as `pocketeval version` finds it.
type Engine struct {
	Name string `json:"name"`
	// Found reports whether this binary can use it; Version is its
	// release, Where the library it loads, Why what is missing when it
	// is not found.
	Found   bool   `json:"found"`
	Version string `json:"version,omitempty"`
	Where   string `json:"where,omitempty"`
	Why     string `json:"why,omitempty"`
}

// FindEngines reports the llama.cpp libraries the llamacpp runtime would
// load and the MNN this binary was built with, without loading either.
func FindEngines() []Engine {
	ll := Engine{Name: "llama.cpp"}
	if dir, v, err := llamacpp.Installed(""); err != nil {
		ll.Why = err.Error()
	} else {
		ll.Found, ll.Version, ll.Where = true, v, dir
	}
	mn := Engine{Name: "mnn"}
	if v := mnn.Version(); v != "" {
		mn.Found, mn.Version = true, v
	} else {
		mn.Why = "not built in (build with -tags mnn; see docs/mnn.md)"
	}
	return []Engine{ll, mn}
}

// NewCmdVersion prints the version.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, BuildInfo: ReadBuildInfo, Engines: FindEngines}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print pocketeval's version, revision, Go version and the engines found",
		Long: `Version prints pocketeval's version and VCS revision, the Go toolchain that
built it, and the inference engines it finds: the llama.cpp libraries the
llamacpp runtime loads ($POCKETEVAL_LLAMA_LIB or the default location) and the
MNN it was built with (-tags mnn). pocketeval --version prints the same.`,
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

// versionJSON is `version --json`.
type versionJSON struct {
	BuildInfo
	Engines []Engine `json:"engines"`
}

func versionRun(opts *VersionOptions) error {
	bi, engines := opts.BuildInfo(), opts.Engines()
	if opts.JSON {
		return writeJSON(opts.IO, versionJSON{BuildInfo: bi, Engines: engines})
	}
	_, err := io.WriteString(opts.IO.Out, versionText(bi, engines))
	return err
}

// versionText is what `pocketeval version` and `pocketeval --version`
// print.
func versionText(bi BuildInfo, engines []Engine) string {
	rev := bi.Revision
	if rev == "" {
		rev = "unknown"
	}
	if bi.Modified {
		rev += "+dirty"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pocketeval %s\n", bi.Version)
	fmt.Fprintf(&b, "  revision   %s\n", rev)
	fmt.Fprintf(&b, "  go         %s %s/%s\n", bi.GoVersion, goruntime.GOOS, goruntime.GOARCH)
	for _, e := range engines {
		if e.Found {
			where := ""
			if e.Where != "" {
				where = " (" + e.Where + ")"
			}
			fmt.Fprintf(&b, "  %-10s %s%s\n", e.Name, e.Version, where)
		} else {
			fmt.Fprintf(&b, "  %-10s not found: %s\n", e.Name, e.Why)
		}
	}
	return b.String()
}
