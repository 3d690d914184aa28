package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"
)

// statFiles reads small kernel files (cgroup counters, /proc/<tid>/stat)
// that a run's monitor reads again every tick: each is opened once and
// read again from offset 0 (the kernel regenerates these files' text on
// every read at offset 0), one system call per read instead of the open,
// stat, reads and close of os.ReadFile. Not for lists of tasks: a cgroup
// v1 tasks or cgroup.procs file keeps the list it built when read again.
// A nil *statFiles reads each file afresh.
type statFiles struct {
	mu  sync.Mutex
	fds map[string]int
	buf []byte
}

func newStatFiles() *statFiles {
	return &statFiles{fds: map[string]int{}, buf: make([]byte, 4096)}
}

// read returns the file's current content (valid until the next read).
func (s *statFiles) read(path string) ([]byte, bool) {
	if s == nil {
		return readFresh(path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fd, ok := s.fds[path]
	if !ok {
		var err error
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, false
		}
		s.fds[path] = fd
	}
	for {
		n, err := unix.Pread(fd, s.buf, 0)
		if err != nil {
			// A task that ended (ESRCH) or a removed group: forget the
			// descriptor, so a new task with the same id is opened anew.
			unix.Close(fd)
			delete(s.fds, path)
			return nil, false
		}
		if n < len(s.buf) {
			return s.buf[:n], true
		}
		s.buf = make([]byte, 2*len(s.buf))
	}
}

// forget closes the descriptors of paths no longer read (tasks that ended).
func (s *statFiles) forget(keep func(path string) bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p, fd := range s.fds {
		if !keep(p) {
			unix.Close(fd)
			delete(s.fds, p)
		}
	}
}

func (s *statFiles) close() {
	s.forget(func(string) bool { return false })
}

// readFresh reads a small file with one open and pread, at most 1 MiB.
func readFresh(path string) ([]byte, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	for {
		n, err := unix.Pread(fd, buf, 0)
		if err != nil {
			return nil, false
		}
		if n < len(buf) || len(buf) >= 1<<20 {
			return buf[:n], true
		}
		buf = make([]byte, 2*len(buf))
	}
}
