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
	// No collection while the range is mapped: one started by the large
	// allocation would find it still referenced and keep it a cycle.
	old := debug.SetGCPercent(-1)
	if !early.Mapped { // else package early mapped it at start-up
		b := make([]byte, Size) // a fresh mapping: the runtime does not touch it
		thp.Advise(b)
		early.AdviseArenaAfter(b)
		runtime.KeepAlive(b)
		b = nil
		// Free the range now, while the heap is small.
		runtime.GC()
	}
	startLate(old)
}

// onRequest reports whether huge pages are given only to ranges that ask
// for them (with "always" the heap has them already, with "never" it
// cannot).
func onRequest() bool { return thp.Mode() == "madvise" }
