package heapinit

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
	if paced() {
		return
	}
	// The cleanup has set the limit for the live heap after the collection
	// that restored the pacing, and goes on doing so after every one.
	n := limits.Load()
	for i := 0; limits.Load() == n; i++ {
		if i == 6000 {
			t.Fatal("no memory limit was set after 6000 collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got < memoryFloor || got == math.MaxInt64 {
		t.Errorf("memory limit after a collection = %d, want at least %d", got, memoryFloor)
	}
}

func TestLimitFor(t *testing.T) {
	for _, c := range []struct {
		live, other uint64
		want        int64
	}{
		{0, 0, memoryFloor},
		{10 << 20, 4 << 20, memoryFloor},
		{40 << 20, 5 << 20, memoryFloor}, // the suite replay's largest: held at the floor
		{50 << 20, 0, 70 << 20},
		{100 << 20, 6 << 20, 146 << 20},
		{1 << 40, 1 << 20, 1<<40 + 2<<40/5 + 1<<20},
		{math.MaxUint64 / 2, 0, math.MaxInt64},
	} {
		if got := limitFor(c.live, c.other); got != c.want {
			t.Errorf("limitFor(%d, %d) = %d, want %d", c.live, c.other, got, c.want)
		}
	}
	// Never below the floor, never falling as the live heap grows.
	prev := int64(0)
	for live := uint64(0); live < 1<<30; live += 1 << 20 {
		got := limitFor(live, 3<<20)
		if got < memoryFloor || got < prev {
			t.Fatalf("limitFor(%d) = %d after %d", live, got, prev)
		}
		prev = got
	}
}

// TestMemoryBound keeps a live heap of 44 MiB, for which GOGC alone
// (steadyGCPercent) would set the next collection's heap goal at twice
// that, 88 MiB, and checks that the memory limit set after a
// collection holds the goal under the floor instead. (The goal, not the
// memory observed: the runtime's limit is soft, and a goroutine that does
// nothing but allocate can outrun a collection that the machine's load
// slows down.)
func TestMemoryBound(t *testing.T) {
	if paced() {
		t.Skip("GOGC or GOMEMLIMIT is set: the environment's pacing applies")
	}
	Prepare()
	live := make([][]byte, 0, 704)
	for range 704 {
		live = append(live, make([]byte, 64<<10))
	}
	n := limits.Load()
	for i := 0; limits.Load() == n; i++ {
		if i == 6000 {
			t.Fatal("no memory limit was set after 6000 collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	runtime.GC() // a cycle paced with that limit
	samples := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(samples)
	runtime.KeepAlive(live)
	goal, heap := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	if heap < 44<<20 {
		t.Fatalf("live heap %d bytes, want at least 44 MiB", heap)
	}
	if goal > memoryFloor {
		t.Errorf("heap goal %.1f MiB around a %.1f MiB live heap, want at most the floor %d MiB",
			float64(goal)/(1<<20), float64(heap)/(1<<20), memoryFloor>>20)
	}
}
