package results

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// LockFile is the name of a result directory's lock file (see LockDir).
const LockFile = ".lock"

func lockPath(dir string) string { return filepath.Join(dir, LockFile) }

// NotRegularError is a path in a result directory that is not what it
// must be: a result file that is not a regular file (a symbolic link, a
// named pipe, a device) or a samples directory that is not a directory.
// Result files are opened without following links, and only regular files
// are read or written.
type NotRegularError = regfile.Error

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
	return fmt.Sprintf("result directory %s is in use by %s; wait for it to finish", e.Dir, who)
}

// openResultFile opens a file of a result directory. It never follows a
// symlink in the last component of path and accepts only a regular file:
// a symlink planted as samples/<task>.jsonl must not make a resume
// truncate and overwrite whatever it points to, and a FIFO must not block
// the run (the open does not wait for a peer).
func openResultFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return regfile.Open(path, flag, perm, true)
}
