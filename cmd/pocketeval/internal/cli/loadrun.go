package cli

import (
	"fmt"
	"sort"
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
	if md := r.Manifest.Config.ModifiedData; len(md) > 0 {
		files := make([]string, 0, len(md))
		for f := range md {
			files = append(files, f)
		}
		sort.Strings(files)
		fmt.Fprintf(io.ErrOut, "warning: %s ran on modified official data (--allow-modified-data): %s; its scores are not the benchmark's\n", dir, strings.Join(files, ", "))
	}
	return r, nil
}
