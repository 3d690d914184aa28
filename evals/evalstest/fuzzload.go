package evalstest

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// CheckLoadFile is the body of a fuzz target for a task's dataset parser:
// it writes data to a file named name in a fresh directory, loads it as
// the task's dataset file (--dataset-file) and checks what any input must
// give — no panic, and either
//
//   - an error that names the file (bad input names file, line and
//     field), or
//   - samples with non-empty, unique ids, the file's sha256 among the
//     files read, and warnings that name the file.
//
// cfg is the rest of the load configuration (DatasetFile is set here).
func CheckLoadFile(t *testing.T, task evals.Task, name string, data []byte, cfg evals.LoadConfig) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.DatasetFile = path
	d, err := task.Load(context.Background(), cfg)
	if err != nil {
		var me *evals.MissingDataError
		if errors.As(err, &me) && me.Path != path {
			return // another file the task needs (few-shot exemplars, prompts)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("load error does not name the file %s: %v", path, err)
		}
		return
	}
	if d == nil {
		t.Fatal("Load returned no dataset and no error")
	}
	if sum := evals.Digest(data); !slices.Contains(slices.Collect(maps.Values(d.Files)), sum) {
		t.Errorf("Files = %v, want the file's sha256 %s among them", d.Files, sum)
	}
	seen := map[string]bool{}
	for i, s := range d.Samples {
		if s.ID == "" {
			t.Errorf("sample %d: empty id", i)
		}
		if seen[s.ID] {
			t.Errorf("sample %d: id %q repeats", i, s.ID)
		}
		seen[s.ID] = true
	}
	for _, w := range d.Warnings {
		if !strings.Contains(w, path) {
			t.Errorf("warning does not name the file %s: %s", path, w)
		}
	}
}
