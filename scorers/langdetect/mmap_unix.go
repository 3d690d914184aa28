//go:build unix

package langdetect

import (
	"os"
	"syscall"
)

// mapFile maps path read-only and privately into memory; the mapping is
// never undone (the model that points into it lives as long as the
// process). Every page is read at once (the checksum and the checks of
// readCache read them all), which on Linux the mapping does in one go
// (MAP_POPULATE, about a fifth cheaper than a fault per page).
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
	return syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
}
