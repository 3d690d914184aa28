//go:build !unix

package drivers

func openFilesLimit() int { return 0 }
