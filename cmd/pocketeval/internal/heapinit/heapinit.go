// Package heapinit prepares the Go heap of a command that is about to
// allocate a lot (a run) so that its first pages cost less to touch.
//
// Every page of the heap is zero-filled by the kernel the first time it is
// touched. With 4 KiB pages that is one page fault per page, and on the
// virtual machines pocketeval is measured on a fault costs about 12 µs
// (shadow page tables): the 11 MB heap of an IFEval replay took about
// 2,700 faults, a quarter of the process's CPU time. Transparent huge
// pages cut that to one fault per 2 MiB, but where the system offers them
// only on request (/sys/kernel/mm/transparent_hugepage/enabled is
// "madvise", the common default) the Go runtime does not ask for them for
// the heap. Prepare asks: it makes the runtime map the next Size bytes of
// heap at once (one large allocation, never touched), marks that range
// MADV_HUGEPAGE, drops the allocation and collects it, so that the pages
// the run goes on to use lie in a huge-page range. It then lets the heap
// reach 32 MB before its first collection (firstGCPercent) instead of
// 4 MB, and paces it at steadyGCPercent after it. The same objects are
// allocated; where huge pages are not available (another system, THP
// "never" or "always", GODEBUG=disablethp=1) Prepare does nothing, and
// GOGC or GOMEMLIMIT in the environment keep the pacing they ask for.
//
// In a process started as `pocketeval run`, package early (initialised
// among the first packages) has already mapped that range, and given the
// heap's first range huge pages too, before package initialisation
// touched it: Prepare then only sets the pacing.
package heapinit

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/heapinit/early"
)

// Size is how much heap Prepare maps with huge pages: more than a
// one-task replay allocates in all (an IFEval replay about 15 MB).
const Size = early.Size

var once sync.Once

// Prepare prepares the heap once per process (see the package comment).
func Prepare() { once.Do(prepare) }

// firstGCPercent is the GOGC of the heap's first cycle: with the default
// 100 the first collection comes when the heap reaches 4 MB, several
// times during a one-task replay that allocates 10 to 15 MB in all.
// Starting at 800 moves it to 32 MB (the range Prepare mapped with huge
// pages, where fresh pages are cheap), so that such a run collects nothing
// (each collection also touches fresh pages of its own); after that first
// collection steadyGCPercent applies.
const firstGCPercent = 800

// steadyGCPercent is the GOGC after the first collection: the heap grows
// to 1.7 times the live heap between collections instead of the default
// 2 times. A run's live heap is mostly the current task's dataset and
// records, alive for the task; the lower goal cuts the peak of the
// nine-task suite replay by about a tenth (87.6 MiB against 98.4 MiB,
// medians of nine alternating pairs at load 1.5; the largest run 91.7
// MiB against 102.1) for about 5% more CPU (1.05×, 0.95–1.13 pair by
// pair): the extra collections cost a little more than the fewer fresh
// pages save (each first touch of a 4 KiB page is a page fault of about
// 12 µs here). At 80 the peak was 94.0 MiB (largest 110.7) for 1.04×.
const steadyGCPercent = 70

// restored is closed when the steady pacing is set (for tests).
var restored = make(chan struct{})

// startLate sets GOGC to firstGCPercent until the first collection and
// to steadyGCPercent after it, unless GOGC or GOMEMLIMIT is set (then it
// restores old).
func startLate(old int) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		debug.SetGCPercent(old)
		close(restored)
		return
	}
	debug.SetGCPercent(firstGCPercent)
	sentinel := new([4]*int) // a pointerful object of its own, not a tiny allocation
	runtime.AddCleanup(sentinel, func(steady int) {
		debug.SetGCPercent(steady)
		close(restored)
	}, steadyGCPercent)
}
