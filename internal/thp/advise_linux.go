package thp

import (
	"syscall"
	"unsafe"
)

// madvHugePage is MADV_HUGEPAGE (not in package syscall).
const madvHugePage = 14

// Advise marks the whole huge pages within b (its 2 MiB-aligned part) as
// wanting huge pages. Errors (a kernel without THP) are ignored: the
// memory stays as it was.
func Advise(b []byte) {
	if len(b) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	hi := (lo + uintptr(len(b))) &^ (Size - 1)
	lo = (lo + Size - 1) &^ (Size - 1)
	if lo < hi {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugePage)
	}
}
