//go:build amd64 || arm64

package early

import (
	"os"
	"syscall"
	"unsafe"

	"github.com/pocketeval/pocketeval/internal/thp"
)

//go:generate go run gen_frame.go

// frameChunk is the size of each array in bigFrame's frame: the compiler
// keeps an explicitly declared variable of up to 128 KiB on the stack
// (a larger one goes to the heap).
const frameChunk = 128 << 10

// neverTrue is false; the compiler cannot know that, so bigFrame keeps
// its arrays.
var neverTrue bool

// keepFrame is bigFrame's use of its arrays (never called).
//
//go:noinline
func keepFrame(...*[frameChunk]byte) {}

// stackAt is an address in the frame of the function bigFrame calls, at
// the low end of the stack the runtime gave it (for tests).
var stackAt uintptr

// MapHeap makes the Go runtime map Size bytes of heap at once, marks them
// MADV_HUGEPAGE and hands them back to the heap, without a collection;
// it reports whether it did.
//
// A goroutine's stack is heap memory: a goroutine that enters a function
// with a frame of about Size bytes gets a stack of Size (stacks grow in
// powers of two; the runtime maps a fresh range for it when the heap has
// no free range that large, and touches only the top, where it copies the
// frames already on the stack), and when the goroutine ends the runtime
// frees a stack of a size other than the initial one at once, unless a
// collection is marking (it then frees it when the marking ends). The
// arrays that make bigFrame's frame large are declared in a branch that
// never runs, so that nothing writes them. Before, the range was made by
// a large allocation that only a collection could free (one collection
// at start-up, about a twelfth of an IFEval replay's CPU time, with its
// mark workers, the fresh pages it writes and the sweep).
func MapHeap() bool {
	if thp.Mode() != "madvise" || os.Getpagesize() != pageSize {
		return false
	}
	mapByStack()
	return true
}

// mapByStack does MapHeap's work: bigFrame on a goroutine of its own,
// which marks its stack's range from its callee (markStack).
func mapByStack() {
	done := make(chan struct{})
	go func() {
		bigFrame(neverTrue, markStack)
		close(done)
	}()
	<-done
}

// markStack runs on the large stack, just below bigFrame's frame: it
// marks the arenas the stack lies in MADV_HUGEPAGE (the stack's range is
// a mapping the runtime made for it, or part of one, see adviseArenaOf)
// and collapses the 2 MiB range it runs in, which its frame touched
// before the mark, into a huge page: the heap takes its lowest free pages
// first, so the stack's low end is where the run allocates from first.
// The high end, which the goroutine's first frames touched, is left as it
// is: the heap reaches it last, after 60 MB (an IFEval replay never does).
//
//go:noinline
func markStack() {
	var here byte
	lo := uintptr(unsafe.Pointer(&here))
	stackAt = lo
	adviseArenaOf(lo)
	adviseArenaOf(lo + frameArrays*frameChunk)
	// An error (an older kernel, no huge page free) leaves the range as
	// it was.
	syscall.Syscall(syscall.SYS_MADVISE, lo&^(thp.Size-1), thp.Size, madvCollapse)
}
