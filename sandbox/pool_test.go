//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func TestRunCancelled(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, err := p.Run(ctx, Program{Source: "import time\ntime.sleep(60)\n"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
	if r.Verdict != Error || r.Reason != "cancelled" {
		t.Errorf("result %s %q, want error cancelled", r.Verdict, r.Reason)
	}
	if r.Duration > 3*time.Second {
		t.Errorf("cancelled run took %s", r.Duration)
	}
}

// TestRunIsolatedFromEachOther: concurrent runs see only their own
// scratch space and process tree.
func TestRunIsolatedFromEachOther(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	const src = `import os, time
mine = "%s"
with open("mark-" + mine, "w") as f:
    f.write(mine)
time.sleep(0.3)
others = [n for n in os.listdir(".") if n.startswith("mark-") and n != "mark-" + mine]
assert not others, others
pids = [n for n in os.listdir("/proc") if n.isdigit()]
assert pids == ["1", "2"], pids  # the init and the program
print(mine)
`
	var wg sync.WaitGroup
	results := make([]Result, 4)
	for i := range results {
		wg.Go(func() {
			var err error
			results[i], err = p.Run(context.Background(), Program{Source: strings.Replace(src, "%s", string(rune('a'+i)), 1)})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.Verdict != Pass || strings.TrimSpace(r.Stdout) != string(rune('a'+i)) {
			t.Errorf("run %d: %s %q stdout %q stderr %q", i, r.Verdict, r.Reason, r.Stdout, r.Stderr)
		}
	}
}

func TestProbeReport(t *testing.T) {
	requireRoot(t)
	ls := Probe()
	if err := ls.Check(); err != nil {
		t.Fatalf("probe below the minimum isolation on this machine:\n%s\n%v", ls, err)
	}
	for _, name := range []string{LayerSupervisor, LayerPIDNS, LayerNetNS, LayerMountNS, LayerRoot, LayerRlimits, LayerUID, LayerIntegrity} {
		if !ls.Active(name) {
			t.Errorf("layer %s inactive as root:\n%s", name, ls)
		}
	}
	if strings.Contains(ls.Python, "shims") {
		t.Errorf("python %s is a shim, want the real interpreter", ls.Python)
	}
	t.Logf("\n%s", ls)
}

func TestNewRefusesWithoutHelperHook(t *testing.T) {
	// The hook is recorded process-wide; simulate a binary without it.
	old := helperHooked.Load()
	helperHooked.Store(false)
	defer helperHooked.Store(old)
	_, err := New(Config{})
	if err == nil || !strings.Contains(err.Error(), "MaybeRunHelper") {
		t.Errorf("New without the helper hook: %v, want an error naming MaybeRunHelper", err)
	}
}

// TestRefusalAndUnsafeMode: when no isolating set-up works, New refuses;
// with Unsafe it runs the interpreter directly and says so.
func TestRefusalAndUnsafeMode(t *testing.T) {
	requireRoot(t)
	_, err := New(Config{onlyMode: "none"})
	if !errors.Is(err, ErrInsufficientIsolation) {
		t.Fatalf("New with no working set-up: %v, want ErrInsufficientIsolation", err)
	}
	p, err := New(Config{onlyMode: "none", Unsafe: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ls := p.Layers()
	if ls.Mode != "unsafe-plain" || !ls.Unsafe || !strings.Contains(ls.String(), "UNSAFE") {
		t.Errorf("layers do not say unsafe:\n%s", ls)
	}
	for _, name := range []string{LayerPIDNS, LayerMountNS, LayerLandlock, LayerSeccomp, LayerCgroup} {
		if ls.Active(name) {
			t.Errorf("layer %s reported active in unsafe-plain mode", name)
		}
	}
	for _, c := range []struct {
		src  string
		want Verdict
	}{
		{"assert [1] == [1]\n", Pass},
		{"import sys\nsys.exit(0)\n", Fail},
		{"while True: pass\n", Timeout},
	} {
		r, err := p.Run(context.Background(), Program{Source: c.src, Limits: Limits{CPUTime: time.Second}})
		if err != nil || r.Verdict != c.want {
			t.Errorf("%q: %s (%s) %v, want %s", c.src, r.Verdict, r.Reason, err, c.want)
		}
	}
}

// BenchmarkRunTrivial measures the per-program cost of the sandbox on one
// worker (set-up, interpreter start, wrapper, tear-down).
func BenchmarkRunTrivial(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	p, err := New(Config{Workers: 1, Python: os.Getenv("POCKETEVAL_BENCH_PYTHON")})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		r, err := p.Run(context.Background(), Program{Source: "assert 1 + 1 == 2\n"})
		if err != nil || r.Verdict != Pass {
			b.Fatalf("%s %v", r.Verdict, err)
		}
	}
}

// TestWorkerRestarts: a worker whose zygote died is replaced on the next
// run, which still gets its verdict.
func TestWorkerRestarts(t *testing.T) {
	requireRoot(t)
	p, err := New(Config{Workers: 1, BaseUID: testBaseUID + 3000})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s := <-p.slots
	old := s.w
	p.slots <- s
	if err := old.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-old.exit
	r, err := p.Run(context.Background(), Program{Source: "assert 1 + 1 == 2\n"})
	if err != nil || r.Verdict != Pass {
		t.Fatalf("after the worker died: %s (%s) %v", r.Verdict, r.Reason, err)
	}
	s = <-p.slots
	if s.w == old || s.w.broken() {
		t.Error("the dead worker was not replaced")
	}
	p.slots <- s
}

// TestBatchCopyLearned: on a kernel with MADV_POPULATE_WRITE (Linux 5.14)
// every zygote learns the pages programs write, and programs still pass
// and fail as before (the other tests run with the batch copy too).
func TestBatchCopyLearned(t *testing.T) {
	requireRoot(t)
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var major, minor int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor)
	if major < 5 || major == 5 && minor < 14 {
		t.Skipf("Linux %d.%d has no MADV_POPULATE_WRITE", major, minor)
	}
	p := testPool(t)
	for _, c := range []struct {
		src  string
		want Verdict
	}{{"assert [1, 2] == [1, 2]\n", Pass}, {"assert {'a': 1} == {'a': 2}\n", Fail}} {
		r, err := p.Run(context.Background(), Program{Source: c.src, Exec: ExecHarness})
		if err != nil || r.Verdict != c.want {
			t.Fatalf("%q: %s (%s) %v, want %s", c.src, r.Verdict, r.Reason, err, c.want)
		}
	}
	p.starting.Wait() // the workers started in the background are ready
	p.mu.Lock()
	defer p.mu.Unlock()
	for w := range p.workers {
		t.Logf("worker %d: %d pages copied in one batch per program", w.id, w.batchPages)
		if w.batchPages < 50 {
			t.Errorf("worker %d learned %d pages, want the wrapper's (hundreds)", w.id, w.batchPages)
		}
	}
}

// TestPinnedPages: where io_uring is available (Linux 5.9 and later for
// the fork to copy pinned pages), every zygote pins the pages it learned,
// so the fork copies them for each program; programs pass and fail as
// before, and none of them holds the ring that pins them. Where the pages
// cannot be pinned, none are, and programs run as before (the batch copy
// alone).
func TestPinnedPages(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	noRing := "import os\n" +
		"for fd in os.listdir('/proc/self/fd'):\n" +
		"    try:\n" +
		"        target = os.readlink('/proc/self/fd/' + fd)\n" +
		"    except OSError:\n" +
		"        continue\n" +
		"    assert 'io_uring' not in target, (fd, target)\n"
	for _, c := range []struct {
		src  string
		want Verdict
	}{{noRing, Pass}, {"assert [1, 2] == [1, 2]\n", Pass}, {"assert {'a': 1} == {'a': 2}\n", Fail}} {
		for i := 0; i < 3; i++ { // on both workers, and after the zygotes' loops have run
			r, err := p.Run(context.Background(), Program{Source: c.src, Exec: ExecHarness})
			if err != nil || r.Verdict != c.want {
				t.Fatalf("%q: %s (%s) %v, want %s", c.src, r.Verdict, r.Reason, err, c.want)
			}
		}
	}
	// Whether this process may set up an io_uring (not disabled by the
	// kernel's settings or a container's seccomp filter).
	var params [120]byte
	ring, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
	ioURing := errno == 0
	if ioURing {
		unix.Close(int(ring))
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var major, minor int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor)
	p.starting.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for w := range p.workers {
		t.Logf("worker %d: %d of %d pages pinned", w.id, w.pinnedPages, w.batchPages)
		if w.pinnedPages < 0 || w.pinnedPages > w.batchPages {
			t.Errorf("worker %d: %d pages pinned of %d learned", w.id, w.pinnedPages, w.batchPages)
		}
		if ioURing && (major > 5 || major == 5 && minor >= 14) && w.pinnedPages != w.batchPages {
			t.Errorf("worker %d pinned %d of its %d learned pages, want all (io_uring is enabled)", w.id, w.pinnedPages, w.batchPages)
		}
	}
}

// TestWorkersStartAtOnce: New starts every worker, not only the one that
// ran the probe, so the first programs find them all warm; Close waits
// for workers still starting.
func TestWorkersStartAtOnce(t *testing.T) {
	requireRoot(t)
	p, err := New(Config{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	p.starting.Wait()
	p.mu.Lock()
	n := len(p.workers)
	p.mu.Unlock()
	if n != 3 {
		t.Errorf("%d workers running before the first program, want 3", n)
	}
	p.Close()
	// Closed while the others are still starting.
	p, err = New(Config{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	p.mu.Lock()
	n = len(p.workers)
	p.mu.Unlock()
	if n != 0 {
		t.Errorf("%d workers left after Close", n)
	}
}

// TestProbeStartsWorkersEarly: the other workers start in the first mode
// tried while worker 0 is probed in it; when that mode is chosen they are
// the pool's, and when its probe fails they are closed and the workers of
// the chosen mode started instead. Either way every slot holds a worker of
// the chosen mode, the pool holds no other, and programs run.
func TestProbeStartsWorkersEarly(t *testing.T) {
	requireRoot(t)
	for _, c := range []struct {
		failProbe, want string
	}{
		{"", "root"},
		{"root", "no-namespaces"},
	} {
		t.Run("chosen="+c.want, func(t *testing.T) {
			const workers = 3
			// Debian's interpreter: the no-namespaces mode's dropped uid
			// cannot read one under /root.
			const debianPython = "/usr/bin/python3"
			if _, err := os.Stat(debianPython); err != nil {
				t.Skip("no ", debianPython)
			}
			p, err := New(Config{Python: debianPython, Workers: workers, BaseUID: testBaseUID, failProbe: c.failProbe})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if got := p.Layers().Mode; got != c.want {
				t.Fatalf("mode %q, want %q", got, c.want)
			}
			slots := make([]*slot, 0, workers)
			for range workers {
				slots = append(slots, <-p.slots)
			}
			p.starting.Wait()
			for _, s := range slots {
				if s.w == nil {
					t.Errorf("slot %d: no worker", s.id)
				} else if s.w.mode != c.want {
					t.Errorf("slot %d: a worker of mode %q in a pool of mode %q", s.id, s.w.mode, c.want)
				}
			}
			p.mu.Lock()
			held := len(p.workers)
			p.mu.Unlock()
			if held != workers {
				t.Errorf("the pool holds %d workers, want %d (one per slot)", held, workers)
			}
			for _, s := range slots {
				p.slots <- s
			}
			var wg sync.WaitGroup
			for i := range 2 * workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := p.Run(context.Background(), Program{Source: fmt.Sprintf("assert %d == %d\n", i, i)})
					if err != nil || res.Verdict != Pass {
						t.Errorf("program %d: %v %v %s", i, res.Verdict, err, res.Reason)
					}
				}()
			}
			wg.Wait()
		})
	}
}
