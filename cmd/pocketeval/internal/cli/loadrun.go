package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/rundir"
)

// loadRun is rundir.Load for a report: what the run's manifest records
// against its scores (official data used although it differs from its
// pin) is printed to stderr, so that no report shows such a run without
// saying so.
func loadRun(io *IOStreams, dir string) (*rundir.Run, error) {
	r, err := rundir.Load(dir)
	if err != nil {
		return nil, err
	}
	if w := modifiedDataWarning(dir, r.Manifest.Config.ModifiedData); w != "" {
		fmt.Fprintf(io.ErrOut, "warning: %s\n", w)
	}
	return r, nil
}

// modifiedDataWarning says that the run in dir used official data files
// that differ from their pins (md), or "" when it did not.
func modifiedDataWarning(dir string, md map[string]string) string {
	if len(md) == 0 {
		return ""
	}
	files := slices.Sorted(maps.Keys(md))
	return fmt.Sprintf("%s ran on modified official data (--allow-modified-data): %s; its scores are not the benchmark's", dir, strings.Join(files, ", "))
}
