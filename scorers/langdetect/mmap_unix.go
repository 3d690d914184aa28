//go:build unix

package langdetect

import (
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapped is the model cache's mapping, once mapFile made it.
var mapped atomic.Pointer[[]byte]

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
	b, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
	if err == nil {
		mapped.Store(&b)
	}
	return b, err
}

// Evict lets the system take back the memory the model's mapped pages
// hold (madvise MADV_DONTNEED): a run calls it when the tasks that detect
// languages have finished, so that the 6 MB of tables do not stay resident
// through the rest of it. The mapping stays; a page used again is read
// again from the cache file, which is never written in place (a new cache
// is renamed over it), so the model is unchanged. A model built in memory
// (no cache) is not evicted.
func Evict() {
	if b := mapped.Load(); b != nil {
		unix.Madvise(*b, unix.MADV_DONTNEED)
	}
}
