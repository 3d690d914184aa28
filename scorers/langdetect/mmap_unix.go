//go:build unix

package langdetect

import (
	"os"
	"syscall"
)

// mapFile maps path read-only and privately into memory; the mapping is
// never undone (the model that points into it lives as long as the
// process).
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < 8 || st.Size() > 1<<30 {
		return nil, errCorrupt
	}
	return syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
}
