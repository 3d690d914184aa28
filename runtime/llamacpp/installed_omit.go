//go:build nollamacpp

package llamacpp

// Installed reports that this binary was built without llama.cpp.
func Installed(dir string) (libDir, version string, err error) {
	return "", "", ErrUnavailable
}
