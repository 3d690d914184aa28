// Package thp tells whether the kernel gives transparent huge pages to
// memory that asks for them, and asks for them.
//
// On the virtual machines pocketeval is measured on, the first touch of a
// 4 KiB page costs about 12 µs (a page fault under shadow page tables; a
// page mapped in advance with MAP_POPULATE still costs several µs at its
// first access), so that touching a few MB costs milliseconds; a 2 MiB
// huge page costs one fault. Linux's common default gives huge pages only
// to ranges marked MADV_HUGEPAGE ("madvise" in
// /sys/kernel/mm/transparent_hugepage/enabled).
package thp

import (
	"bytes"
	"os"
	"sync"
)

// (No package strings here: a package that early initialisation imports
// must depend on few packages, see cmd/pocketeval/internal/heapinit/early.)

// Size is the size of a huge page on the systems that give them (x86-64
// and arm64 with 4 KiB base pages).
const Size = 2 << 20

// modePath is the file that says when the kernel gives huge pages.
var modePath = "/sys/kernel/mm/transparent_hugepage/enabled"

// Mode returns "always", "madvise" or "never" as the kernel says, or ""
// where it does not say (another system, no THP) or when the Go runtime
// has been told to avoid huge pages (GODEBUG=disablethp=1). It reads the
// file once per process.
func Mode() string { return mode() }

var mode = sync.OnceValue(func() string {
	if bytes.Contains([]byte(os.Getenv("GODEBUG")), []byte("disablethp=1")) {
		return ""
	}
	return readMode()
})

func readMode() string {
	b, err := os.ReadFile(modePath)
	if err != nil {
		return ""
	}
	for _, m := range []string{"always", "madvise", "never"} {
		if bytes.Contains(b, []byte("["+m+"]")) {
			return m
		}
	}
	return ""
}

// Available reports whether memory marked with Advise gets huge pages.
func Available() bool {
	m := Mode()
	return m == "always" || m == "madvise"
}
