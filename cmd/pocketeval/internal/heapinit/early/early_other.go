//go:build !linux || !(amd64 || arm64)

package early

func prepare() bool { return false }
