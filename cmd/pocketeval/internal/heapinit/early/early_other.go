//go:build !linux || !(amd64 || arm64)

package early

func prepare() bool { return false }

// AdviseArenaAfter does nothing here.
func AdviseArenaAfter(b []byte) {}
