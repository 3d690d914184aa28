//go:build !linux || !(amd64 || arm64)

package early

func prepare() bool { return false }

// MapHeap does nothing here (see the Linux version): it reports false.
func MapHeap() bool { return false }
