package evals

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadDataFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "d.jsonl")
	os.WriteFile(path, []byte("abc"), 0o644)
	data, sum, err := ReadDataFile("task", path, "src")
	// sha256("abc")
	if err != nil || string(data) != "abc" || sum != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("ReadDataFile = %q, %s, %v", data, sum, err)
	}
	_, _, err = ReadDataFile("task", filepath.Join(dir, "none"), "src")
	var me *MissingDataError
	if !errors.As(err, &me) || me.Task != "task" || me.Source != "src" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want a *MissingDataError that is fs.ErrNotExist", err)
	}
	if _, _, err := ReadDataFile("task", dir, "src"); err == nil || errors.As(err, &me) {
		t.Errorf("directory: err = %v, want a read error", err)
	}
	if _, err := StatDataPath("task", filepath.Join(dir, "none"), "src"); !errors.As(err, &me) {
		t.Errorf("StatDataPath: err = %v, want *MissingDataError", err)
	}
}
