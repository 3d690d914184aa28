//go:build amd64 || arm64

package early

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
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
	lo := (base + arenaSize - 1) &^ (arenaSize - 1)
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

// hugeFlag reports whether the mapping holding addr has VmFlags hg.
func hugeFlag(t *testing.T, addr uintptr) bool {
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
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line+" ", " hg ")
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return false
}

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }
