//go:build amd64 || arm64

package early

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/pocketeval/pocketeval/internal/thp"
)

// TestAdviseArenaOf marks an arena-aligned range of a fresh mapping from
// an address in its middle: the whole arena, and nothing around it, asks
// for huge pages.
func TestAdviseArenaOf(t *testing.T) {
	if thp.Mode() != "madvise" {
		t.Skipf("THP %q: MADV_HUGEPAGE is only observable in madvise mode", thp.Mode())
	}
	m, err := syscall.Mmap(-1, 0, 3*arenaSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	base := uintptr(unsafePointer(m))
	// The first arena boundary above base (not at it): the mapping goes on
	// on both sides of the arena.
	lo := (base + arenaSize) &^ (arenaSize - 1)
	adviseArenaOf(lo + arenaSize/2 + 12345)
	for _, c := range []struct {
		addr uintptr
		want bool
	}{
		{lo, true},
		{lo + arenaSize - 4096, true},
		{lo - 4096, false},
		{lo + arenaSize, false},
	} {
		if got := hugeFlag(t, c.addr); got != c.want {
			t.Errorf("address %#x (arena %#x): hg %v, want %v", c.addr, lo, got, c.want)
		}
	}
}

// TestMapByStack checks MapHeap's way of mapping the heap: the goroutine's
// stack is Size bytes, its range asks for huge pages from one end to the
// other, no collection runs, and the stack's memory goes back to the heap
// when the goroutine ends.
func TestMapByStack(t *testing.T) {
	if frame := frameArrays * frameChunk; frame <= Size/2 || frame > Size-64<<10 {
		t.Fatalf("bigFrame's frame is %d bytes: the stack that holds it would not be Size (%d)", frame, Size)
	}
	if Size&(Size-1) != 0 {
		t.Fatalf("Size %d is not a power of two, as stacks are", Size)
	}
	if thp.Mode() != "madvise" {
		t.Skipf("THP %q: MADV_HUGEPAGE is only observable in madvise mode", thp.Mode())
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	if !MapHeap() {
		t.Fatal("MapHeap() = false with THP madvise")
	}
	for _, a := range []uintptr{stackAt, stackAt + frameArrays*frameChunk/2, stackAt + frameArrays*frameChunk} {
		perms, hg := mappingOf(t, a)
		if !strings.HasPrefix(perms, "rw") {
			t.Errorf("address %#x of the stack (from %#x): mapping %s, want the heap's (read-write)", a, stackAt, perms)
		}
		if !hg {
			t.Errorf("address %#x of the stack (from %#x): not marked for huge pages", a, stackAt)
		}
	}
	var after runtime.MemStats
	for start := time.Now(); ; {
		runtime.ReadMemStats(&after)
		if after.StackInuse < before.StackInuse+Size/2 {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("the stack's %d bytes are still in use a minute after the goroutine ended (stacks in use %d before, %d now)", Size, before.StackInuse, after.StackInuse)
		}
		time.Sleep(time.Millisecond)
	}
	if after.NumGC != before.NumGC {
		t.Errorf("%d collections while mapping, want none", after.NumGC-before.NumGC)
	}
	if after.HeapIdle < Size-1<<20 {
		t.Errorf("idle heap %d bytes after the stack was freed, want at least %d", after.HeapIdle, Size-1<<20)
	}
}

// hugeFlag reports whether the mapping holding addr has VmFlags hg.
func hugeFlag(t *testing.T, addr uintptr) bool {
	t.Helper()
	_, hg := mappingOf(t, addr)
	return hg
}

// mappingOf returns the permissions of the mapping holding addr and
// whether it has VmFlags hg.
func mappingOf(t *testing.T, addr uintptr) (perms string, hg bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var from, to uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &from, &to); n == 2 && !strings.HasSuffix(strings.Fields(line)[0], ":") {
			in = from <= addr && addr < to
			if in {
				perms = strings.Fields(line)[1]
			}
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return perms, strings.Contains(line+" ", " hg ")
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return "", false
}

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
