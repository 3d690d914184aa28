package heapinit

import (
	"runtime"
	"testing"
)

// TestPrepare checks that preparing the heap (twice: the second call does
// nothing) leaves a heap that allocates and collects as before, and that
// the large allocation it made is freed.
func TestPrepare(t *testing.T) {
	Prepare()
	Prepare()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc >= Size {
		t.Fatalf("heap in use %d after Prepare: its %d-byte allocation was kept", ms.HeapAlloc, Size)
	}
	var keep [][]byte
	for i := range 1000 {
		keep = append(keep, make([]byte, 1000+i))
		keep[i][i] = byte(i)
	}
	for i, b := range keep {
		if b[i] != byte(i) {
			t.Fatal("heap memory changed")
		}
	}
}
