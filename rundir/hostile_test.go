package rundir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
)

// recomputeDigests records the samples' current digests in the manifest,
// as a forger would.
func recomputeDigests(t *testing.T, dir string, edit func(*results.Manifest)) {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for task := range m.SamplesSHA256 {
		if m.SamplesSHA256[task], err = results.SamplesDigest(dir, task); err != nil {
			t.Fatal(err)
		}
	}
	if edit != nil {
		edit(m)
	}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// TestLoadRefusesHostileRuns (issue #49): invalid UTF-8 in a samples file
// (digest recomputed) is refused with file, line and field; a manifest set
// back to "running" is not a result; a samples/ directory that is a
// symbolic link is refused before anything behind it is read.
func TestLoadRefusesHostileRuns(t *testing.T) {
	t.Run("invalid UTF-8", func(t *testing.T) {
		dir := rundirtest.FakeRun(t, "m.gguf", map[string][]float64{"gsm8k": {1, 0, 1}}, 10, 100)
		rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
			lines[1] = strings.Replace(lines[1], `"id":"1"`, "\"id\":\"1\xff\xfe\"", 1)
			return lines
		})
		recomputeDigests(t, dir, nil)
		_, err := rundir.Load(dir)
		var se *results.SampleError
		if !errors.As(err, &se) || se.Line != 2 || se.Field != "id" || !strings.Contains(err.Error(), "invalid UTF-8") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("running", func(t *testing.T) {
		dir := rundirtest.FakeRun(t, "m.gguf", map[string][]float64{"gsm8k": {1, 0, 1}}, 10, 100)
		recomputeDigests(t, dir, func(m *results.Manifest) { m.Status = results.StatusRunning })
		_, err := rundir.Load(dir)
		var ie *results.IncompleteError
		if !errors.As(err, &ie) || !regfile.IsUnusable(err) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("samples symlink", func(t *testing.T) {
		dir := rundirtest.FakeRun(t, "m.gguf", map[string][]float64{"gsm8k": {1, 0, 1}}, 10, 100)
		other := t.TempDir()
		if err := os.Rename(filepath.Join(dir, results.SamplesDir), filepath.Join(other, "s")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(other, "s"), filepath.Join(dir, results.SamplesDir)); err != nil {
			t.Fatal(err)
		}
		_, err := rundir.Load(dir)
		var ne *results.NotRegularError
		if !errors.As(err, &ne) || strings.Contains(err.Error(), "sha256") {
			t.Errorf("got %v", err)
		}
	})
}
