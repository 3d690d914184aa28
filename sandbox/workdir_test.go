//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestStaleWorkDirsRemoved: a pool removes at its start the worker
// directories of processes that died (their lock is free) and old ones
// without a lock, and keeps those of live pools and fresh ones without a
// lock (a pool between creating and locking its directory).
func TestStaleWorkDirsRemoved(t *testing.T) {
	tmp := t.TempDir()
	live, liveLock, err := newWorkDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer liveLock.Close()
	dead, deadLock, err := newWorkDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dead, "root"), 0o700); err != nil {
		t.Fatal(err)
	}
	deadLock.Close() // its process died: nobody holds the lock
	legacy := filepath.Join(tmp, workDirPrefix+"legacy")
	fresh := filepath.Join(tmp, workDirPrefix+"fresh")
	other := filepath.Join(tmp, "other-dir")
	for _, d := range []string{legacy, fresh, other} {
		if err := os.MkdirAll(filepath.Join(d, "root"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * legacyWorkDirAge)
	for _, d := range []string{legacy, other} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	removed := removeStaleWorkDirs(tmp)
	slices.Sort(removed)
	want := []string{dead, legacy}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, d := range []string{dead, legacy} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", d, err)
		}
	}
	for _, d := range []string{live, fresh, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
	// The live directory's lock is held, also against this process's
	// own second look.
	if staleWorkDir(live) {
		t.Error("a live pool's directory was taken as stale")
	}
}

// TestPoolRemovesStaleWorkDirs: New cleans its TempDir, and Close
// removes the pool's own worker directories.
func TestPoolRemovesStaleWorkDirs(t *testing.T) {
	requireRoot(t)
	tmp := t.TempDir()
	dead, lock, err := newWorkDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	lock.Close()
	p, err := New(Config{Workers: 2, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("stale %s still there after New (%v)", dead, err)
	}
	p.Close()
	left, _ := filepath.Glob(filepath.Join(tmp, workDirPrefix+"*"))
	if len(left) != 0 {
		t.Errorf("left after Close: %q", left)
	}
}
