//go:build unix

package results

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Lock is a held lock on a result directory.
type Lock struct {
	f *os.File
}

// LockDir takes the exclusive lock of result directory dir (creating the
// directory if needed), so that one process at a time writes it. The lock
// is an flock(2) on dir/.lock, which holds the owner's pid: a second
// writer is refused with a *LockedError naming that pid. The kernel
// releases the lock when its owner exits, however it exits, so a crashed
// run never leaves a stale lock.
func LockDir(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock result directory: %w", err)
	}
	path := lockPath(dir)
	f, err := openResultFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock result directory %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
			return nil, &LockedError{Dir: dir, PID: pid}
		}
		return nil, fmt.Errorf("lock result directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. It is idempotent. The lock file stays: removing
// it would let a third process lock a new file while a second still
// waits on the old one.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return f.Close()
}
