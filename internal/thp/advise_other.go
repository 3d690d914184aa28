//go:build !linux

package thp

// Advise does nothing off Linux.
func Advise(b []byte) {}
