package early

import (
	"runtime"
	"testing"

	"github.com/pocketeval/pocketeval/internal/thp"
)

// TestPrepare runs the early preparation in a process that has run for a
// while (a test binary is not `run`, so init did nothing): it maps the
// heap where the kernel gives huge pages on request and nowhere else, the
// range it allocated is freed, and the heap keeps its contents.
func TestPrepare(t *testing.T) {
	keep := make([][]byte, 0, 1000)
	for i := range 1000 {
		keep = append(keep, make([]byte, 100+i))
		keep[i][i] = byte(i)
	}
	got := prepare()
	want := runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") && thp.Mode() == "madvise"
	if got != want {
		t.Errorf("prepare() = %v, want %v (THP %q)", got, want, thp.Mode())
	}
	for i, b := range keep {
		if b[i] != byte(i) {
			t.Fatal("heap memory changed")
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc >= Size {
		t.Fatalf("heap in use %d after prepare: its %d-byte allocation was kept", ms.HeapAlloc, Size)
	}
	if Mapped {
		t.Error("Mapped set outside `run`")
	}
}
