// Package regfile opens regular files and refuses everything else: a named
// pipe, a device, a socket, a directory and, when asked, a symbolic link.
// It never blocks doing so (opening a FIFO for reading otherwise waits for
// a writer) and never reads a byte of what it refuses. Dataset files
// (evals) and result files (results) are opened through it.
package regfile

import (
	"fmt"
	"io/fs"
	"os"
)

// Error is a path that is not what it must be.
type Error struct {
	Path string
	// Kind is what the path is: "a named pipe", "a symbolic link"...
	Kind string
	// Want is what it must be; "" means a regular file.
	Want string
}

func (e *Error) Error() string {
	want := e.Want
	if want == "" {
		want = "a regular file"
	}
	return fmt.Sprintf("%s is %s, not %s: refused, nothing read or written", e.Path, e.Kind, want)
}

// Open opens path like os.OpenFile, and returns an *Error, with nothing
// read, when path is not a regular file. With noFollow, a symbolic link at
// path (its last component) is refused rather than followed.
func Open(path string, flag int, perm os.FileMode, noFollow bool) (*os.File, error) {
	f, err := open(path, flag, perm, noFollow)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &Error{Path: path, Kind: Kind(st.Mode())}
	}
	return f, nil
}

// Kind names the type of a file mode for messages: "a named pipe", "a
// character device", "a directory"...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a " + m.Type().String() + " file"
}
