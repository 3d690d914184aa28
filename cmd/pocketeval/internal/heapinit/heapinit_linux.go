package heapinit

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// madvHugePage is MADV_HUGEPAGE (not in package syscall).
const madvHugePage = 14

// thpMode is the path that says when the kernel gives huge pages.
var thpMode = "/sys/kernel/mm/transparent_hugepage/enabled"

func prepare() {
	if !onRequest() {
		return
	}
	// No collection while the range is mapped: one started by the large
	// allocation would find it still referenced and keep it a cycle.
	old := debug.SetGCPercent(-1)
	b := make([]byte, Size) // a fresh mapping: the runtime does not touch it
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	hi := (lo + Size) &^ (hugePage - 1)
	lo = (lo + hugePage - 1) &^ (hugePage - 1)
	if lo < hi {
		// An error (a kernel without THP) leaves the heap as it was.
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugePage)
	}
	runtime.KeepAlive(b)
	b = nil
	// Free the range now, while the heap is small.
	runtime.GC()
	startLate(old)
}

// onRequest reports whether huge pages are given only to ranges that ask
// for them, and the runtime has not been told to avoid them.
func onRequest() bool {
	if strings.Contains(os.Getenv("GODEBUG"), "disablethp=1") {
		return false
	}
	b, err := os.ReadFile(thpMode)
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}
