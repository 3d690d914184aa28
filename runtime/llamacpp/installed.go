//go:build !nollamacpp

package llamacpp

// Installed reports the llama.cpp libraries Open would load (dir as for
// Options.LibDir; "" means $POCKETEVAL_LLAMA_LIB, else DefaultLibDir()) and
// the release they come from, without loading them.
func Installed(dir string) (libDir, version string, err error) {
	libDir, err = LibDir(dir)
	if err != nil {
		return "", "", err
	}
	return libDir, readVersion(libDir), nil
}
