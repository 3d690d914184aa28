//go:build !unix

package langdetect

import "os"

// mapFile reads path (no memory mapping here).
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

// Evict does nothing where the model is not mapped.
func Evict() {}
