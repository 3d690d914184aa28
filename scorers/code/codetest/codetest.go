// Package codetest gives the tests of the code scorers and tasks the one
// Python executor pocketeval has: a sandbox.Pool. Where the machine can
// isolate programs (as root, or with user namespaces) the pool is fully
// isolated; elsewhere it is the same pool in unsafe mode
// (sandbox.Config.Unsafe: the same zygote, wrapper, limits and verdict
// rules, only without the isolation layers the machine lacks), so the tests
// always exercise pocketeval's own execution path. Set
// POCKETEVAL_CODE_EXECUTOR=sandbox to fail instead of running unsafe.
//
// A test binary using it must call sandbox.MaybeRunHelper first thing in
// TestMain and Close after m.Run.
package codetest

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
)

// Kinds reported by Pool.
const (
	KindSandbox = "sandbox" // at or above the minimum isolation
	KindUnsafe  = "unsafe"  // below it (the same pool, Config.Unsafe)
)

var (
	once    sync.Once
	pool    *sandbox.Pool
	kind    string
	poolErr error
)

// Pool returns the test binary's shared pool (two workers) and its kind,
// skipping the test when no Python 3 interpreter is installed.
func Pool(tb testing.TB) (*sandbox.Pool, string) {
	tb.Helper()
	once.Do(func() {
		// RLIMIT_NPROC counts per uid machine-wide: a block of 65536 uids
		// of its own, disjoint from concurrent test binaries' and from
		// pocketeval's own pools (which start at 200000 and stay below 6e8).
		base := 600_000_000 + (os.Getpid()%2048)*(1<<16)
		// Both workers are served by one zygote process where the mode
		// allows it, as the code tasks' isolated verdicts run (the two
		// sides of an isolated program on the same zygote).
		pool, poolErr = sandbox.New(sandbox.Config{Workers: 2, WorkersPerZygote: 2, BaseUID: base, Unsafe: os.Getenv("POCKETEVAL_CODE_EXECUTOR") != KindSandbox})
		if poolErr == nil {
			kind = KindSandbox
			if pool.Layers().Unsafe {
				kind = KindUnsafe
			}
		}
	})
	if poolErr != nil {
		if strings.Contains(poolErr.Error(), "find python") {
			tb.Skipf("python3 is not available: %v", poolErr)
		}
		tb.Fatalf("sandbox: %v", poolErr)
	}
	return pool, kind
}

// Close stops the shared pool, if one was started.
func Close() error {
	if pool != nil {
		return pool.Close()
	}
	return nil
}
