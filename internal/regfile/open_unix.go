//go:build unix

package regfile

import (
	"errors"
	"os"
	"syscall"
)

// open opens without waiting on a FIFO (O_NONBLOCK, which does not change
// how a regular file reads and writes) and, with noFollow, without
// following a link (O_NOFOLLOW).
func open(path string, flag int, perm os.FileMode, noFollow bool) (*os.File, error) {
	flag |= syscall.O_NONBLOCK
	if noFollow {
		flag |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flag, perm)
	switch {
	case noFollow && errors.Is(err, syscall.ELOOP):
		return nil, &Error{Path: path, Kind: "a symbolic link"}
	case errors.Is(err, syscall.ENXIO): // a FIFO without a reader, opened to write
		return nil, &Error{Path: path, Kind: "a named pipe"}
	}
	return f, err
}
