//go:build !unix

package regfile

import "os"

// open checks the path before opening it (there is no O_NOFOLLOW or
// O_NONBLOCK here), which leaves a window between the check and the open.
func open(path string, flag int, perm os.FileMode, noFollow bool) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() && (noFollow || st.Mode()&os.ModeSymlink == 0) {
		return nil, &Error{Path: path, Kind: Kind(st.Mode())}
	}
	return os.OpenFile(path, flag, perm)
}
