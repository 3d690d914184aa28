package evals

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ReadDataFile reads one dataset file for a task's Load and returns its
// contents with their sha256 (hex, as Dataset.Files records it). A file
// that does not exist is a *MissingDataError naming the task, the path and
// the official source; any other failure is an error naming the task and
// the path.
func ReadDataFile(task, path, source string) ([]byte, string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", &MissingDataError{Task: task, Path: path, Source: source}
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: read dataset: %w", task, err)
	}
	return data, Digest(data), nil
}

// Digest is the sha256 of data in hex, the form Dataset.Files records.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// StatDataPath checks that a dataset path (a file or a directory) exists,
// returning a *MissingDataError when it does not.
func StatDataPath(task, path, source string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingDataError{Task: task, Path: path, Source: source}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read dataset: %w", task, err)
	}
	return st, nil
}
