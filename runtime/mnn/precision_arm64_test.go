//go:build cgo && mnn && arm64

package mnn

func init() { exactPrecision = "normal" }
