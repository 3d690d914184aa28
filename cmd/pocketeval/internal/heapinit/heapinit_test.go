package heapinit

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"
)

// TestPrepare checks that preparing the heap (twice: the second call does
// nothing) leaves a heap that allocates and collects as before, that the
// large allocation it made is freed, and that the default pacing is back
// after the first collection.
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
	if runtime.GOOS != "linux" || !onRequest() {
		return
	}
	// The cleanup that restores the pacing runs after a collection, in
	// its own goroutine: collect until it has run.
	for i := 0; ; i++ {
		runtime.GC()
		select {
		case <-restored:
		case <-time.After(10 * time.Millisecond):
			if i == 6000 {
				t.Fatal("GOGC was not restored after the first collections")
			}
			continue
		}
		break
	}
	want := steadyGCPercent
	switch os.Getenv("GOGC") {
	case "":
		if os.Getenv("GOMEMLIMIT") != "" {
			want = 100
		}
	case "off":
		want = -1
	default:
		want, _ = strconv.Atoi(os.Getenv("GOGC"))
	}
	if got := debug.SetGCPercent(want); os.Getenv("GOGC") == "" && got != want {
		t.Errorf("GOGC after the first collection = %d, want %d", got, want)
	}
}
