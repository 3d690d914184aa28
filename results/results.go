// Package results reads and writes pocketeval's result directory:
//
//	manifest.json         how the run was made (written atomically)
//	samples/<task>.jsonl  one line per sample, appended and synced as samples finish
//	summary.json          per-task metrics (written atomically)
//
// The format is documented in docs/results-format.md and versioned by
// SchemaVersion. A directory written by a newer schema is refused.
//
// Crash safety: sample lines are written with one write(2) each and synced
// (group commit), so `kill -9` loses at most the lines in flight. A torn last
// line is detected on open, reported and cut off; duplicate lines (same task,
// id and repeat) keep the first. When a run completes, each samples file is
// rewritten atomically in dataset order so finished directories are
// byte-for-byte reproducible.
package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SchemaVersion is the version of the result-directory format written by
// this package. Readers accept this and older versions.
const SchemaVersion = 1

// File names inside a result directory.
const (
	ManifestFile = "manifest.json"
	SummaryFile  = "summary.json"
	SamplesDir   = "samples"
)

// ErrNewerSchema is returned (wrapped) for a directory written by a newer
// pocketeval.
var ErrNewerSchema = errors.New("written by a newer pocketeval (schema version too new)")

// WriteJSONAtomic writes v as indented JSON to path through a temporary
// file, fsync and rename, so readers never see a torn file.
func WriteJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	data = append(data, '\n')
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, fsync and rename.
func WriteFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic writes path through a temporary file in the same directory
// that write fills, fsync and rename.
func writeAtomic(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// readJSON reads a JSON file into v, checking its schema_version.
func readJSON(path string, v any) error {
	f, err := openResultFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var head struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if head.SchemaVersion > SchemaVersion {
		return fmt.Errorf("read %s: schema version %d: %w (this build reads up to %d)", path, head.SchemaVersion, ErrNewerSchema, SchemaVersion)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
