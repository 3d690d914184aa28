//go:build cgo && mnn && linux

package mnn

import (
	"os"
	"syscall"
)

// isMainThread reports whether the calling OS thread is the process's
// main thread.
func isMainThread() bool { return syscall.Gettid() == os.Getpid() }
