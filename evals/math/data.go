package math

import (
	"bytes"
	"path/filepath"

	"github.com/pocketeval/pocketeval/evals"
)

// MissingDataError and DataError are the evals package's data errors.
type (
	MissingDataError = evals.MissingDataError
	DataError        = evals.DataError
)

// datasetPath resolves a task's primary file: the override when set, else
// rel under the data directory.
func datasetPath(cfg evals.LoadConfig, rel string) string {
	if cfg.DatasetFile != "" {
		return cfg.DatasetFile
	}
	return filepath.Join(cfg.DataDir, rel)
}

// readLines reads a whole file, hashes it, and returns its lines (without
// terminators; a final empty line is dropped). The lines share the file's
// bytes: a bufio.Scanner's Bytes would be overwritten once a file outgrows
// the scanner's buffer (train.jsonl's 4 MB did).
func readLines(task, path, source string) ([][]byte, string, error) {
	data, sum, err := evals.ReadDataFile(task, path, source)
	if err != nil {
		return nil, "", err
	}
	var lines [][]byte
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		lines = append(lines, bytes.TrimRight(line, "\r"))
	}
	return lines, sum, nil
}
