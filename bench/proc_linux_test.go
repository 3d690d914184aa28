package bench

import (
	"os"
	"syscall"
	"testing"
)

// TestSystemProbe checks the real /proc reader on this machine: the peak
// is at least the current RSS, and after a reset, touching 64 MiB of fresh
// anonymous memory (mmap, outside Go's heap, so nothing is reused) raises
// the peak by at least that much.
func TestSystemProbe(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc on this system")
	}
	rss, peak, err := System.Memory()
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || peak < rss {
		t.Fatalf("rss %d peak %d", rss, peak)
	}
	if _, err := System.LoadAvg(); err != nil {
		t.Fatal(err)
	}
	if m := System.(interface{ CPUModel() string }).CPUModel(); m == "" {
		t.Log("no model name in /proc/cpuinfo")
	}
	if err := System.ResetPeak(); err != nil {
		t.Skipf("cannot reset the peak here: %v", err)
	}
	base, _, err := System.Memory()
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	for i := 0; i < size; i += 4096 {
		mem[i] = 1
	}
	_, peak2, err := System.Memory()
	if err != nil {
		t.Fatal(err)
	}
	if peak2 < base+size-(4<<20) {
		t.Errorf("peak after touching 64 MiB = %d, want at least %d", peak2, base+size-(4<<20))
	}
}
