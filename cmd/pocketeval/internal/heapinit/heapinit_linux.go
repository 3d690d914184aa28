package heapinit

import (
	"runtime"
	"runtime/debug"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/heapinit/early"
	"github.com/pocketeval/pocketeval/internal/thp"
)

func prepare() {
	if !onRequest() {
		startSteady()
		return
	}
	old := debug.SetGCPercent(-1)
	if !early.Mapped && !early.MapHeap() {
		// Where package early cannot map the range (a 32-bit or other
		// architecture): one large allocation, never touched, freed by a
		// collection now, while the heap is small. No collection while
		// it is allocated: one started by the allocation would find it
		// still referenced and keep it a cycle.
		b := make([]byte, Size) // a fresh mapping: the runtime does not touch it
		thp.Advise(b)
		runtime.KeepAlive(b)
		b = nil
		runtime.GC()
	}
	startLate(old)
}

// onRequest reports whether huge pages are given only to ranges that ask
// for them (with "always" the heap has them already, with "never" it
// cannot).
func onRequest() bool { return thp.Mode() == "madvise" }
