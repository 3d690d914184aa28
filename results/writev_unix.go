//go:build unix

package results

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxIovecs is the most buffers one writev(2) takes (IOV_MAX).
const maxIovecs = 1024

// writeLines writes lines to f, in order, with one writev(2) for up to
// maxIovecs of them (more calls only after a short write), without
// joining them first.
func writeLines(f *os.File, lines [][]byte) error {
	if len(lines) == 1 {
		_, err := f.Write(lines[0])
		return err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		werr = writevAll(int(fd), lines)
		return true
	}); err != nil {
		return err
	}
	return werr
}

// writevAll writes every byte of lines to fd, resuming after a short
// write and retrying on EINTR. lines is not modified.
func writevAll(fd int, lines [][]byte) error {
	copied := false
	for len(lines) > 0 {
		if len(lines[0]) == 0 {
			lines = lines[1:]
			continue
		}
		n, err := unix.Writev(fd, lines[:min(len(lines), maxIovecs)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrShortWrite
		}
		for n > 0 {
			if n >= len(lines[0]) {
				n -= len(lines[0])
				lines = lines[1:]
				continue
			}
			// A short write cut this line: the rest of it goes first.
			if !copied {
				lines = append([][]byte(nil), lines...)
				copied = true
			}
			lines[0] = lines[0][n:]
			n = 0
		}
	}
	return nil
}
