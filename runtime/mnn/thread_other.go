//go:build cgo && mnn && !linux

package mnn

// isMainThread reports false: outside Linux the engine thread is not
// steered away from the main thread.
func isMainThread() bool { return false }
