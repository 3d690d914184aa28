package evals

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// Limits on what a dataset file may demand of ReadDataFile.
const (
	// MaxDataFileBytes bounds a dataset file (the largest official one,
	// MMLU's professional_law_test.csv, is 1.9 MB).
	MaxDataFileBytes = 1 << 30
	// MaxLineBytes bounds one line (its bytes before the "\n", a "\r"
	// included; the longest official line, a BBH task file, is 286 KB).
	// Loaders that scan lines with a buffer of 16 MiB therefore never
	// see bufio.ErrTooLong.
	MaxLineBytes = 8 << 20
)

// ReadDataFile reads one dataset file for a task's Load and returns its
// contents with their sha256 (hex, as Dataset.Files records it). A file
// that does not exist is a *MissingDataError naming the task, the path and
// the official source; any other failure is an error naming the task and
// the path.
//
// Only a regular file (or a symlink to one) is read: a FIFO, a device
// such as /dev/zero, a socket or a directory is refused without reading,
// and the open never waits for a FIFO's writer. A file over
// MaxDataFileBytes is refused, and a line over MaxLineBytes is a
// *DataError naming the file and the line.
//
// A file this process already hashed, and which has not changed since
// (regfile.Known: the same device, inode, size and times), is not hashed
// again: the pin check, the task's load and a second load after the
// dataset was let go hash each file once in all.
func ReadDataFile(task, path, source string) ([]byte, string, error) {
	start := time.Now()
	f, err := regfile.Open(path, os.O_RDONLY, 0, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", &MissingDataError{Task: task, Path: path, Source: source}
	}
	if err != nil { // a *regfile.Error for a FIFO, a device, a directory
		return nil, "", fmt.Errorf("%s: read dataset: %w", task, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("%s: read dataset: %w", task, err)
	}
	if st.Size() > MaxDataFileBytes {
		return nil, "", regfile.Unusable(path, fmt.Errorf("%s: read dataset %s: %d bytes, more than the %d a dataset file may have", task, path, st.Size(), int64(MaxDataFileBytes)))
	}
	// Sized from Stat (io.ReadAll would grow its buffer from 512 bytes,
	// allocating about three times the file); 512 spare bytes let the
	// read that finds the end, or a file that grew, fit without a copy.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(f, MaxDataFileBytes+1))
	data := buf.Bytes()
	if err != nil {
		return nil, "", fmt.Errorf("%s: read dataset %s: %w", task, path, err)
	}
	if len(data) > MaxDataFileBytes {
		return nil, "", regfile.Unusable(path, fmt.Errorf("%s: read dataset %s: grew past %d bytes while read", task, path, int64(MaxDataFileBytes)))
	}
	if err := checkLineLengths(path, data); err != nil {
		return nil, "", fmt.Errorf("%s: read dataset: %w", task, err)
	}
	after, err := f.Stat()
	if err != nil {
		return nil, "", fmt.Errorf("%s: read dataset: %w", task, err)
	}
	// The digest remembered for the file as it was before and after the
	// read is the digest of what was read.
	if sum, ok := regfile.Known(st); ok {
		if again, ok := regfile.Known(after); ok && again == sum {
			return data, sum, nil
		}
	}
	sum := Digest(data)
	regfile.Remember(st, after, start, sum)
	return data, sum, nil
}

// checkLineLengths returns a *DataError for the first line of data longer
// than MaxLineBytes.
func checkLineLengths(path string, data []byte) error {
	for line := 1; len(data) > 0; line++ {
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			n = len(data)
		}
		if n > MaxLineBytes {
			return &DataError{Path: path, Line: line, Err: fmt.Errorf("line of %d bytes, longer than the %d a dataset line may have", n, MaxLineBytes)}
		}
		data = data[min(n+1, len(data)):]
	}
	return nil
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
