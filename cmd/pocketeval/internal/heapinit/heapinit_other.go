//go:build !linux

package heapinit

func prepare() { startSteady() }

// onRequest reports whether huge pages are given only on request: never
// here, where Prepare maps nothing and sets only the steady pacing.
func onRequest() bool { return false }
