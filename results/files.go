package results

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// LockFile is the name of a result directory's lock file (see LockDir).
const LockFile = ".lock"

func lockPath(dir string) string { return filepath.Join(dir, LockFile) }

// NotRegularError is a path in a result directory that is not what it
// must be: a result file that is not a regular file (a symbolic link, a
// named pipe, a device) or a samples directory that is a link. Result
// files are opened without following links, and only regular files are
// read or written.
type NotRegularError struct {
	Path string
	Kind string // "a symbolic link", "a named pipe", ...
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s: a result directory holds only regular files and real directories (refusing to follow or open it)", e.Path, e.Kind)
}

// LockedError is a result directory that another process is writing.
type LockedError struct {
	Dir string
	PID int // 0 when the lock file does not say
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("another pocketeval process (pid %d)", e.PID)
	}
	return fmt.Sprintf("result directory %s is in use by %s; wait for it to finish or choose another --out", e.Dir, who)
}

func kindOf(m fs.FileMode) string {
	switch {
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
