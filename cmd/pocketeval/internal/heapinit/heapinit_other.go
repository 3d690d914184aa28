//go:build !linux

package heapinit

func prepare() {}

// onRequest reports whether huge pages are given only on request: never
// here, where Prepare does nothing.
func onRequest() bool { return false }
