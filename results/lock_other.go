//go:build !unix

package results

import (
	"fmt"
	"os"
)

// Lock is a held lock on a result directory.
type Lock struct{}

// LockDir creates dir if needed. There is no flock(2) on this platform:
// the directory is not locked, and two writers are not detected.
func LockDir(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock result directory: %w", err)
	}
	return &Lock{}, nil
}

// Unlock does nothing.
func (l *Lock) Unlock() error { return nil }
