package regfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// A run reads some files more than once (the pin check of a dataset file,
// its task's load, a second load after the dataset was let go) and records
// their sha256 each time. The digest cache lets a process hash such a
// file once: a digest is remembered with the file's identity (device,
// inode, size, modification and change times, to the nanosecond) as
// fstat saw it before and after the bytes were read, and a later read of
// a file with the very same identity takes the remembered digest instead
// of hashing again. A write to the file changes its change time (and
// usually its size or modification time), so changed content is hashed
// again. The one write the identity could miss falls within the clock
// tick of the last one; a file changed in the last RacyMargin before it
// was hashed is therefore never remembered (git's "racily clean" rule).
// Only Linux has a remembered digest; elsewhere every read hashes.

// RacyMargin is how long ago a file's last change must lie, when its
// bytes are read, for its digest to be remembered.
var racyMargin atomic.Int64

func init() { racyMargin.Store(int64(2 * time.Second)) }

// SetRacyMargin sets the margin (tests: a negative one remembers files
// just written) and returns the previous one.
func SetRacyMargin(d time.Duration) time.Duration {
	return time.Duration(racyMargin.Swap(int64(d)))
}

var (
	digests  sync.Map // identity → string (hex sha256)
	computed atomic.Int64
)

// DigestsComputed is how many digests this process computed through
// KnownDigest's callers (HashFile, Remember), for tests.
func DigestsComputed() int64 { return computed.Load() }

// Known returns the digest remembered for the file st describes, if any.
func Known(st fs.FileInfo) (string, bool) {
	id, ok := identityOf(st)
	if !ok {
		return "", false
	}
	v, ok := digests.Load(id)
	if !ok {
		return "", false
	}
	return v.(string), true
}

// Remember records sum as the digest of the bytes read from a file that
// fstat described as before when the read started (at start) and as
// after when it ended. Nothing is remembered when the two differ (the
// file changed while read) or the file changed within the racy margin
// of start.
func Remember(before, after fs.FileInfo, start time.Time, sum string) {
	computed.Add(1)
	a, ok := identityOf(before)
	if !ok {
		return
	}
	if b, ok := identityOf(after); !ok || a != b {
		return
	}
	limit := start.UnixNano() - racyMargin.Load()
	if !a.changedBefore(limit) {
		return
	}
	digests.Store(a, sum)
}

// SHA256Known is SHA256, taking a digest the process remembers for the
// file (see Known) instead of reading it, and remembering the one it
// computes.
func SHA256Known(path string) (string, error) {
	start := time.Now()
	f, err := Open(path, os.O_RDONLY, 0, false)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	if sum, ok := Known(before); ok {
		return sum, nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if after, err := f.Stat(); err == nil {
		Remember(before, after, start, sum)
	}
	return sum, nil
}
