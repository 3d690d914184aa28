// Package golden compares test output with golden files, in the manner of
// x/perf's cmd/benchstat tests: `go test -update` rewrites the files, a
// missing golden file counts as empty, and on a mismatch the output is
// written next to the golden file as <path>.got (gitignored) so it can be
// diffed and the test fails naming both.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the output the tests produce")

// Check compares got with the golden file at path (with -update it first
// writes got there).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gotPath := path + ".got"
	_ = os.WriteFile(gotPath, got, 0o644)
	t.Errorf("output differs from %s (written to %s; diff them, and run go test -update to accept):\n%s", path, gotPath, got)
}
