//go:build amd64 || arm64

package early

import (
	"os"
	"syscall"
	"unsafe"

	"github.com/pocketeval/pocketeval/internal/thp"
)

const (
	// arenaSize is the Go runtime's heap arena on 64-bit Linux: the heap
	// is reserved in aligned ranges of this size.
	arenaSize = 64 << 20
	pageSize  = 4 << 10

	madvHugePage = 14 // MADV_HUGEPAGE
	madvCollapse = 25 // MADV_COLLAPSE (Linux 6.1)
)

// resident is mincore's answer for the arena, one byte per page (a
// package variable: 16 KB is too large a frame for an init).
var resident [arenaSize / pageSize]byte

// probe holds a heap object while adviseFirstArena finds the heap.
var probe *[64]byte

// prepare does the package's work (see the package comment) and reports
// whether it mapped the run's heap.
func prepare() bool {
	if thp.Mode() != "madvise" || os.Getpagesize() != pageSize {
		return false
	}
	adviseFirstArena()
	mapByStack()
	return true
}

// adviseArenaOf marks the arena that holds the address p MADV_HUGEPAGE:
// the whole of each mapping the runtime made there for the heap, which
// goes on past the range MapHeap had it map (it maps the heap in 4 MiB
// chunks), so that no 2 MiB range it covers only in part is left out
// (without this, the heap's first megabytes beyond the range were touched
// a 4 KiB page at a time: about 125 page faults in an IFEval replay). The
// rest of the arena is only reserved; marking it changes nothing until it
// is mapped, which replaces the mark.
func adviseArenaOf(p uintptr) {
	syscall.Syscall(syscall.SYS_MADVISE, p&^(arenaSize-1), arenaSize, madvHugePage)
}

// adviseFirstArena marks the arena that holds the heap so far
// MADV_HUGEPAGE and collapses its touched 2 MiB ranges into huge pages.
// A heap that is not where it is looked for (mincore fails on a range that
// is not all mapped) is left as it is.
func adviseFirstArena() {
	probe = new([64]byte) // an object of the heap (a package variable: not on the stack)
	lo := uintptr(unsafe.Pointer(probe)) &^ (arenaSize - 1)
	probe = nil
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, lo, arenaSize, uintptr(unsafe.Pointer(&resident[0]))); errno != 0 {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, lo, arenaSize, madvHugePage)
	const perHuge = thp.Size / pageSize
	for r := 0; r < len(resident); r += perHuge {
		for _, v := range resident[r : r+perHuge] {
			if v&1 != 0 {
				// Errors (an older kernel, no huge page free) leave
				// the range as it was.
				syscall.Syscall(syscall.SYS_MADVISE, lo+uintptr(r)*pageSize, thp.Size, madvCollapse)
				break
			}
		}
	}
}
