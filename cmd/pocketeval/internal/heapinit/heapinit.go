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
// the run goes on to use lie in a huge-page range. Nothing else changes: the
// same objects are allocated and collected, and where huge pages are not
// available (another system, THP "never" or "always", GODEBUG=disablethp=1)
// Prepare does nothing.
package heapinit

import "sync"

// Size is how much heap Prepare maps with huge pages: about what a
// one-task replay run uses at its peak.
const Size = 16 << 20

var once sync.Once

// Prepare prepares the heap once per process (see the package comment).
func Prepare() { once.Do(prepare) }
