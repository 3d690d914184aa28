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
// heap at once (as the stack of a goroutine that then ends, see
// early.MapHeap; where that is not available, one large allocation,
// never touched, dropped and collected), marks that range MADV_HUGEPAGE
// and hands it back to the heap, so that the pages the run goes on to use
// lie in a huge-page range. It then lets the heap
// reach 32 MB before its first collection (firstGCPercent) instead of
// 4 MB, and paces it at steadyGCPercent after it. The same objects are
// allocated; where huge pages are not available (another system, THP
// "never" or "always", GODEBUG=disablethp=1) Prepare maps nothing and
// sets only the steady pacing. Throughout, a soft memory limit keeps the
// runtime's memory under memoryFloor while the live heap allows (see
// limitFor). GOGC or GOMEMLIMIT in the environment keep the pacing they
// ask for.
//
// In a process started as `pocketeval run`, package early (initialised
// among the first packages) has already mapped that range, and given the
// heap's first range huge pages too, before package initialisation
// touched it: Prepare then only sets the pacing.
package heapinit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/heapinit/early"
)

// Size is how much heap Prepare maps with huge pages: more than a
// one-task replay allocates in all (an IFEval replay about 15 MB), and
// about what a long run's heap takes under memoryFloor, so that it does
// not grow past the range. Beyond it the runtime maps the heap in 4 MiB
// chunks, each a new mapping without the huge-page mark, touched 4 KiB at
// a time: with 32 MiB the nine-task suite replay took 10,700–11,300 page
// faults (about 9 µs each on the virtual machines pocketeval is measured
// on), with 64 MiB 3,400–4,600, and 0.92× the CPU (see memoryFloor). The
// range costs nothing until it is used: only the pages a run touches are
// resident.
const Size = early.Size

var once sync.Once

// Prepare prepares the heap once per process (see the package comment).
func Prepare() { once.Do(prepare) }

// firstGCPercent is the GOGC of the heap's first cycle: with the default
// 100 the first collection comes when the heap reaches 4 MB, several
// times during a one-task replay that allocates 10 to 15 MB in all.
// Starting at 800 moves it to 32 MB (within the range Prepare mapped with
// huge pages, where fresh pages are cheap), so that such a run collects nothing
// (each collection also touches fresh pages of its own); after that first
// collection steadyGCPercent applies.
const firstGCPercent = 800

// steadyGCPercent is the GOGC after the first collection: the runtime's
// default, the heap growing to twice the live heap between collections,
// with the soft memory limit (memoryFloor, limitFor) bounding the peak.
// Before the limit the steady GOGC was 70, which cut the nine-task suite
// replay's peak by about a tenth for about 5% more CPU; with the limit
// the peak stays under the floor either way, and GOGC 100 collects less
// often: 0.95-0.97× the CPU of GOGC 70 (two sets of nine alternating
// pairs, load 3.1-3.9), peak 82.6-83.0 MiB (largest 86.7) against
// 78.1-79.7 (largest 80.7).
const steadyGCPercent = 100

// memoryFloor is the soft memory limit (runtime/debug.SetMemoryLimit) of
// a run whose live heap is small: the Go runtime's memory (heap, stacks,
// metadata; not the binary's pages nor C memory such as a model's
// weights) stays under it while the live heap allows. GOGC alone lets the
// heap grow to twice whatever is live at the last collection, so a
// run's peak follows its largest live heap, and that moves with the
// machine: the nine-task suite replay's largest live heap after a
// collection was 31-33 MB on a quiet machine and 31-44 MB with CPU hogs
// running (more of one task's end and the next one's start alive at
// once), its peak RSS 76-83 MB against 82-95 MB. The floor bounds it.
// It leaves room for the range Prepare maps (Size) and the runtime's own
// memory: the runtime returns free heap pages to the system (64 KiB at a
// time, splitting the huge page they are in, which then comes back 4 KiB
// at a time) as its memory nears the limit. With the 64 MiB range, the
// suite replay against a 32 MiB range and a 64 MiB floor (15–21
// alternating pairs each, load 1.1–2.0): a 64 MiB floor 0.95× the CPU,
// peak 79.6 MiB against 77.2; 68 MiB 0.92×, 81.8 against 76.7 (largest
// 83.6); 72 MiB 0.88× and 0.91×, 85.3 and 85.7 (one run 100.4); 76 MiB
// 0.90×, 87.1; with two CPU hogs running, 68 MiB 0.98×, peak 82.8 (largest
// 83.8) against 77.2.
const memoryFloor = 68 << 20

// limitFor returns the soft memory limit after a collection that left
// live bytes of heap live, with other bytes of the runtime's memory
// outside the heap (stacks, metadata): memoryFloor, or, for a live heap
// too large for it, that heap plus two fifths of it, so that a run whose
// live heap outgrows the floor collects about two and a half times as
// often as GOGC alone would make it (its goal is twice the live heap),
// never without pause. (The suite replay's largest live heaps, 31-44 MB,
// stay at or near the floor: a larger fraction would let them pass it.)
func limitFor(live, other uint64) int64 {
	l := other + live + live*2/5
	if l < memoryFloor {
		return memoryFloor
	}
	if l > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(l)
}

// restored is closed when the steady pacing is set (for tests).
var restored = make(chan struct{})

// limits counts the memory limits set after collections (for tests).
var limits atomic.Int64

// startLate sets GOGC to firstGCPercent until the first collection and
// to steadyGCPercent after it, with the soft memory limit of limitFor
// from the start, unless GOGC or GOMEMLIMIT is set (then it restores
// old).
func startLate(old int) {
	if paced() {
		debug.SetGCPercent(old)
		close(restored)
		return
	}
	debug.SetGCPercent(firstGCPercent)
	debug.SetMemoryLimit(memoryFloor)
	watch(true)
}

// startSteady sets the steady pacing at once (where the heap was not
// prepared), unless GOGC or GOMEMLIMIT is set.
func startSteady() {
	if paced() {
		close(restored)
		return
	}
	debug.SetGCPercent(steadyGCPercent)
	debug.SetMemoryLimit(memoryFloor)
	close(restored)
	watch(false)
}

// paced reports whether the environment sets the pacing itself.
func paced() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// watch arranges for afterCollection to run after the next collection:
// a pointerful object of its own (not a tiny allocation) that nothing
// references is found unreachable by it.
func watch(first bool) {
	runtime.AddCleanup(new([4]*int), afterCollection, first)
}

// afterCollection sets the steady GOGC after the first collection and
// the memory limit for the live heap after every one, and watches for
// the next.
func afterCollection(first bool) {
	if first {
		debug.SetGCPercent(steadyGCPercent)
	}
	debug.SetMemoryLimit(limitFor(readMemory()))
	limits.Add(1)
	if first {
		close(restored)
	}
	watch(false)
}

// memorySamples are read after every collection; metrics.Read takes no
// lock the allocator holds and allocates nothing with a reused slice.
var memorySamples = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/unused:bytes"},
}

// readMemory returns the live heap of the last collection and the
// runtime's memory outside the heap (what the memory limit counts
// besides the heap: stacks, span and GC metadata, other runtime data).
// Only the cleanup goroutine calls it, one call at a time.
func readMemory() (live, other uint64) {
	metrics.Read(memorySamples)
	v := func(i int) uint64 {
		if memorySamples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return memorySamples[i].Value.Uint64()
	}
	live = v(0)
	heap := v(2) + v(3) + v(4) + v(5)
	if total := v(1); total > heap {
		other = total - heap
	}
	return live, other
}
