//go:build !linux

package heapinit

func prepare() {}
