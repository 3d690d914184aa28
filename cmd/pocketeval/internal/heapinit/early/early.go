// Package early gives the heap of a `pocketeval run` process huge pages
// from the start, before the program's packages are initialised.
//
// Package heapinit maps the heap a run goes on to use with transparent
// huge pages, but only once the command runs: by then package
// initialisation, the command tree and the flags have touched the first
// 2 to 4 MB of the heap a 4 KiB page at a time (about 700 page faults of
// about 12 µs each on the virtual machines pocketeval is measured on, a
// tenth of an IFEval replay), and the run's first allocations go on
// filling that range before they reach the prepared one. This package is
// initialised among the first (Go initialises packages in the order of
// their import paths as soon as their imports are: this one imports only
// os, syscall, unsafe and internal/thp, which imports no more), and when
// the command is `run` and the kernel gives huge pages on request it
//
//   - marks the heap's reserved range MADV_HUGEPAGE, so that its untouched
//     2 MiB ranges get a huge page at their first touch;
//   - collapses each 2 MiB range that the runtime's own start-up already
//     touched into a huge page (MADV_COLLAPSE; the pages keep their
//     contents), so that the rest of it costs no more faults;
//   - has the runtime map the next heapinit.Size bytes of heap at once,
//     marks them and hands them back to the heap, with no collection
//     (MapHeap: the range is a goroutine's stack, which the runtime frees
//     when the goroutine ends). Prepare then only sets the pacing.
//
// Elsewhere (another command, another system, THP "never" or "always",
// GODEBUG=disablethp=1, a heap laid out otherwise) it does nothing and
// Prepare does all of its work as before. No object is allocated
// differently: only the pages under the heap change.
package early

import "os"

// Size is heapinit.Size (this package cannot import heapinit).
const Size = 64 << 20

// Mapped reports whether the early preparation mapped the run's heap with
// huge pages (heapinit.Prepare then does not map it again).
var Mapped bool

func init() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		Mapped = prepare()
	}
}
