package codetest

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
)

// RepoRoot walks up from the working directory to the directory holding
// go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatalf("repo root: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatalf("repo root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// DataDir is the shared datasets directory: $POCKETEVAL_DATA when set, else
// <repo root>/../shared/datasets. It skips the test when the directory does
// not exist.
func DataDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("POCKETEVAL_DATA")
	if dir == "" {
		dir = filepath.Join(RepoRoot(tb), "..", "shared", "datasets")
	}
	return mustExist(tb, dir)
}

// ConformanceDir is <repo root>/../shared/conformance/<sub>; it skips the
// test when the directory does not exist.
func ConformanceDir(tb testing.TB, sub string) string {
	tb.Helper()
	return mustExist(tb, filepath.Join(RepoRoot(tb), "..", "shared", "conformance", sub))
}

func mustExist(tb testing.TB, dir string) string {
	tb.Helper()
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		tb.Skipf("shared material %s is absent; skipping", dir)
	}
	return dir
}

// NewForTest returns an Executor for a test, skipping the test when no
// Python 3 is installed.
func NewForTest(tb testing.TB, cfg Config) *Executor {
	tb.Helper()
	ex, err := New(cfg)
	if err != nil {
		tb.Skipf("python3 is not available: %v", err)
	}
	return ex
}

var poolSeq atomic.Int64

// Executor kinds reported by Choose.
const (
	KindSandbox    = "sandbox"    // the real sandbox.Pool
	KindSubprocess = "subprocess" // this package's unisolated Executor
)

// Choose returns the executor conformance tests should use: the real
// sandbox when it can be set up here (the test binary must call
// sandbox.MaybeRunHelper in TestMain), else this package's subprocess
// Executor. POCKETEVAL_CODE_EXECUTOR=subprocess or =sandbox forces one
// (sandbox then fails the test when it cannot start). The returned kind
// says which was used; the pool is closed when the test's cleanup runs.
func Choose(tb testing.TB) (sandbox.Executor, string) {
	tb.Helper()
	force := os.Getenv("POCKETEVAL_CODE_EXECUTOR")
	if force != KindSubprocess {
		// RLIMIT_NPROC counts per uid machine-wide: give each test pool
		// its own block of 65536 uids, disjoint from those of concurrent
		// test binaries and of pocketeval's own pools (which start at
		// 200000 and stay below 6e8).
		slot := (os.Getpid()%2048)*4 + int(poolSeq.Add(1)%4)
		baseUID := 600_000_000 + slot*(1<<16)
		pool, err := sandbox.New(sandbox.Config{BaseUID: baseUID})
		if err == nil {
			tb.Cleanup(func() { pool.Close() })
			return pool, KindSandbox
		}
		if force == KindSandbox {
			tb.Fatalf("POCKETEVAL_CODE_EXECUTOR=sandbox: %v", err)
		}
		tb.Logf("real sandbox unavailable (%v); using the unisolated subprocess executor", err)
	}
	return NewForTest(tb, Config{}), KindSubprocess
}
