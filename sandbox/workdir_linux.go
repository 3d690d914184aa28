package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Worker directories (the private root's mount point, or the parent of
// the runs' scratch directories) are named workDirPrefix + random in the
// pool's TempDir. Each holds a lock file, workDirLock, on which the pool
// that made it holds an exclusive flock until it removes the directory:
// a directory whose lock nobody holds belongs to a process that died
// without Close (killed), and the next pool to start removes it.
const (
	workDirPrefix = "pocketeval-sbx-"
	workDirLock   = "lock"
	// legacyWorkDirAge is how old a worker directory without a lock file
	// (made by a version before the locks, or by a process killed between
	// creating it and locking it) must be before it is taken as stale:
	// there is no way to tell whether its process still runs.
	legacyWorkDirAge = 24 * time.Hour
)

// newWorkDir creates a worker directory in tmp and locks it; the lock is
// released by closing the returned file (after removing the directory).
// The lock file is locked under a temporary name and then renamed into
// place, so a directory's lock file is never seen unlocked while its pool
// lives.
func newWorkDir(tmp string) (dir string, lock *os.File, err error) {
	dir, err = os.MkdirTemp(tmp, workDirPrefix)
	if err != nil {
		return "", nil, err
	}
	lock, err = os.OpenFile(filepath.Join(dir, "."+workDirLock), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err == nil {
		if err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			err = os.Rename(lock.Name(), filepath.Join(dir, workDirLock))
		}
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return dir, lock, nil
}

// removeStaleWorkDirs removes the worker directories in tmp left by
// pools whose processes died: those whose lock file no process holds,
// and those without a lock file older than legacyWorkDirAge. It returns
// the directories it removed.
func removeStaleWorkDirs(tmp string) []string {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workDirPrefix) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if staleWorkDir(dir) {
			removed = append(removed, dir)
		}
	}
	return removed
}

// staleWorkDir removes dir if it is stale and reports whether it did.
func staleWorkDir(dir string) bool {
	f, err := os.Open(filepath.Join(dir, workDirLock))
	if errors.Is(err, os.ErrNotExist) {
		fi, err := os.Stat(dir)
		if err != nil || time.Since(fi.ModTime()) < legacyWorkDirAge {
			return false
		}
		return removeWorkDir(dir) == nil
	}
	if err != nil {
		return false
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false // its pool lives
	}
	return removeWorkDir(dir) == nil
}

// removeWorkDir detaches what may still be mounted on the private root's
// mount point and removes the directory.
func removeWorkDir(dir string) error {
	_ = syscall.Unmount(filepath.Join(dir, "root"), unix.MNT_DETACH)
	return os.RemoveAll(dir)
}
