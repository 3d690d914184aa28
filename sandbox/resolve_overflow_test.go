package sandbox

import (
	"testing"
	"time"
)

// TestResolveHugeCPUTime: a huge CPU-time limit gives a huge wall-clock
// guard, not an overflowed (negative, then 60 s) one. Issue 21: `sandbox
// run --timeout 900000h` reported a timeout after 15 ms.
func TestResolveHugeCPUTime(t *testing.T) {
	t.Parallel()
	for _, cpu := range []time.Duration{900000 * time.Hour, 1<<63 - 1} {
		got := (Limits{CPUTime: cpu}).resolve(DefaultLimits)
		if got.Wall < cpu {
			t.Errorf("CPUTime %s: Wall %s, want at least the CPU limit", cpu, got.Wall)
		}
	}
}
