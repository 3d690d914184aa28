//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testBaseUID gives this test process its own uid range, so that leftover
// checks never see the runs of another test binary running concurrently.
var testBaseUID = 1_000_000 + (os.Getpid()%4096)*uidSpan

var (
	poolOnce sync.Once
	pool     *Pool
	poolErr  error
)

// testPool is the shared pool of the package's tests: full isolation is
// required (these tests run as root, as CI does). Its two workers are
// served by one zygote process, as the isolated verdicts' are (the pools
// of fresh_test.go, limits_test.go and modules_test.go have a zygote per
// worker).
func testPool(t *testing.T) *Pool {
	t.Helper()
	poolOnce.Do(func() {
		pool, poolErr = New(Config{Workers: 2, WorkersPerZygote: 2, BaseUID: testBaseUID, Limits: Limits{CPUTime: 2 * time.Second, MemoryBytes: 256 << 20}})
	})
	if poolErr != nil {
		if strings.Contains(poolErr.Error(), "find python") {
			t.Skipf("no python3 on this machine: %v", poolErr)
		}
		t.Fatalf("sandbox.New: %v", poolErr)
	}
	return pool
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the adversarial suite runs as root (as CI does); rootless mode is not covered here")
	}
}

// hostFixture is what the attacks aim at on the host.
type hostFixture struct {
	dir       string // host directory (0755) with secret.txt
	secret    string // content of the secret
	rootFile  string // a file under /root
	victim    *exec.Cmd
	tcpAddr   string
	tcpHits   chan string
	udpAddr   string
	udpHits   chan string
	unixPath  string
	unixHits  chan string
	abstract  string
	absHits   chan string
	listeners []func()
}

func newHostFixture(t *testing.T) *hostFixture {
	t.Helper()
	h := &hostFixture{secret: "pocketeval-secret-" + newNonce()}
	var err error
	h.dir, err = os.MkdirTemp("", "pocketeval-sbx-host-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(h.dir) })
	if err := os.Chmod(h.dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "secret.txt"), []byte(h.secret), 0o644); err != nil {
		t.Fatal(err)
	}
	h.rootFile = filepath.Join("/root", "pocketeval-sbx-secret-"+newNonce()[:8])
	if err := os.WriteFile(h.rootFile, []byte(h.secret), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(h.rootFile) })

	h.victim = exec.Command("sleep", "300")
	if err := h.victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.victim.Process.Kill(); h.victim.Wait() })

	accept := func(l net.Listener, hits chan string) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits <- c.RemoteAddr().String()
			c.Close()
		}
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.tcpAddr, h.tcpHits = tl.Addr().String(), make(chan string, 100)
	go accept(tl, h.tcpHits)
	t.Cleanup(func() { tl.Close() })

	uc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.udpAddr, h.udpHits = uc.LocalAddr().String(), make(chan string, 100)
	go func() {
		buf := make([]byte, 100)
		for {
			n, _, err := uc.ReadFrom(buf)
			if err != nil {
				return
			}
			h.udpHits <- string(buf[:n])
		}
	}()
	t.Cleanup(func() { uc.Close() })

	h.unixPath = filepath.Join(h.dir, "host.sock")
	ul, err := net.Listen("unix", h.unixPath)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(h.unixPath, 0o777)
	h.unixHits = make(chan string, 100)
	go accept(ul, h.unixHits)
	t.Cleanup(func() { ul.Close() })

	h.abstract = "pocketeval-sbx-" + newNonce()[:8]
	al, err := net.Listen("unix", "@"+h.abstract)
	if err != nil {
		t.Fatal(err)
	}
	h.absHits = make(chan string, 100)
	go accept(al, h.absHits)
	t.Cleanup(func() { al.Close() })
	return h
}

func (h *hostFixture) expand(src string) string {
	host, port, _ := net.SplitHostPort(h.tcpAddr)
	_, uport, _ := net.SplitHostPort(h.udpAddr)
	return strings.NewReplacer(
		"{{DIR}}", h.dir, "{{SECRET}}", h.secret, "{{ROOTFILE}}", h.rootFile,
		"{{VICTIM}}", strconv.Itoa(h.victim.Process.Pid), "{{HOST}}", host, "{{PORT}}", port,
		"{{UPORT}}", uport, "{{UNIX}}", h.unixPath, "{{ABSTRACT}}", h.abstract,
		"{{PARENT}}", strconv.Itoa(os.Getpid()),
	).Replace(src)
}

func (h *hostFixture) checkUnaffected(t *testing.T) {
	t.Helper()
	if err := h.victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("victim process %d did not survive: %v", h.victim.Process.Pid, err)
	}
	entries, err := os.ReadDir(h.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "secret.txt" && e.Name() != "host.sock" {
			t.Errorf("host directory gained %s", e.Name())
		}
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "secret.txt")); err != nil || string(b) != h.secret {
		t.Errorf("host secret changed: %q, %v", b, err)
	}
	for _, p := range []string{"/etc/pocketeval-escape", "/usr/pocketeval-escape", "/root/pocketeval-escape", "/tmp/pocketeval-escape", "/pocketeval-escape"} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			t.Errorf("host file %s was created", p)
		}
	}
	for name, c := range map[string]chan string{"tcp": h.tcpHits, "udp": h.udpHits, "unix": h.unixHits, "abstract unix": h.absHits} {
		select {
		case hit := <-c:
			t.Errorf("host %s listener was reached: %q", name, hit)
		default:
		}
	}
}

// sandboxProcesses lists host processes running as a sandbox uid or
// carrying the marker in their command line.
func sandboxProcesses(marker string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) != nil {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		cl := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if i := strings.Index(cl, " -c "); i >= 0 && len(cl) > i+60 {
			cl = cl[:i+60] + "..."
		}
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "State:") || strings.HasPrefix(line, "NSpid:") || strings.HasPrefix(line, "PPid:") {
				cl += " [" + line + "]"
			}
		}
		if (int(st.Uid) >= testBaseUID && int(st.Uid) < testBaseUID+uidSpan) || (marker != "" && strings.Contains(cl, marker)) {
			prog, _ := os.ReadFile(fmt.Sprintf("/proc/%d/root/scratch/main.py", pid))
			found = append(found, fmt.Sprintf("pid %d uid %d: %s (self %d)\n%s", pid, st.Uid, cl, os.Getpid(), prog))
		}
	}
	return found
}

type attack struct {
	name   string
	src    string
	limits Limits
	want   []Verdict
	// maxDur bounds the run's duration (0: the wall-clock hang guard +
	// 10 s: the kill works); the run must also end by its own limits, not
	// by the hang guard.
	maxDur time.Duration
	check  func(t *testing.T, r Result)
}

// Attack programs print ESCAPED when a forbidden action succeeded; every
// program that ends normally then asserts it was contained.
// (Inside the PID namespace pid 1 is the program itself, so /proc/1 is
// not a target.)
const prelude = `import os, sys, socket, signal, time, errno
escaped = []
def attempt(name, fn):
    try:
        fn()
    except Exception as e:
        return
    escaped.append(name)
    print("ESCAPED", name)
`

const epilogue = `
assert not escaped, escaped
`

// TestAttacks runs every attack family in full isolation (root mode) and
// in the degraded no-namespaces mode (Landlock + seccomp + rlimits + uid +
// cgroup), asserting the verdict and that the host is unaffected.
func TestAttacks(t *testing.T) {
	requireRoot(t)
	h := newHostFixture(t)
	marker := "pocketeval-daemon-" + newNonce()[:8]
	t.Run("root", func(t *testing.T) {
		p := testPool(t)
		if p.Layers().Mode != "root" {
			t.Fatalf("mode %s, want root:\n%s", p.Layers().Mode, p.Layers())
		}
		runAttacks(t, p, h, marker)
	})
	t.Run("no-namespaces", func(t *testing.T) {
		if testing.Short() {
			t.Skip("the degraded mode's run of every attack is not -short")
		}
		const debianPython = "/usr/bin/python3"
		if _, err := os.Stat(debianPython); err != nil {
			t.Skipf("needs a python3 readable by an unprivileged uid at %s: %v", debianPython, err)
		}
		p, err := New(Config{Python: debianPython, Workers: 2, onlyMode: "no-namespaces", BaseUID: testBaseUID,
			Limits: Limits{CPUTime: 2 * time.Second, MemoryBytes: 256 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ls := p.Layers()
		for _, name := range []string{LayerLandlock, LayerSeccomp, LayerUID, LayerCgroup} {
			if !ls.Active(name) {
				t.Fatalf("layer %s inactive in no-namespaces mode:\n%s", name, ls)
			}
		}
		if ls.Active(LayerMountNS) || ls.Active(LayerPIDNS) {
			t.Fatalf("namespaces active in no-namespaces mode:\n%s", ls)
		}
		runAttacks(t, p, h, marker)
	})
}

func runAttacks(t *testing.T, p *Pool, h *hostFixture, marker string) {
	anyNonPass := []Verdict{Fail, Timeout, Error}

	attacks := []attack{
		// --- the filesystem ---
		{name: "write outside scratch", want: []Verdict{Pass}, src: prelude + `
def w(p):
    with open(p, "w") as f:
        f.write("x")
for p in ["/etc/pocketeval-escape", "/usr/pocketeval-escape", "/root/pocketeval-escape",
          "/pocketeval-escape", "{{DIR}}/escape",
          "/proc/{{PARENT}}/root/tmp/pocketeval-escape", "/proc/self/root/etc/pocketeval-escape"]:
    attempt("write " + p, lambda p=p: w(p))
attempt("mkdir /usr/x", lambda: os.mkdir("/usr/pocketeval-escape"))
attempt("chmod scratch parent", lambda: os.chmod("/", 0o777))
# writable places inside the sandbox still work
import tempfile
w(os.path.join(os.getcwd(), "ok.txt")); w(os.path.join(tempfile.gettempdir(), "ok2.txt"))
` + epilogue},
		{name: "read secrets", want: []Verdict{Pass}, src: prelude + `
def r(p):
    with open(p) as f:
        data = f.read()
    if not data:
        raise OSError("empty")
for p in ["/etc/shadow", "{{ROOTFILE}}", "{{DIR}}/secret.txt",
          "/proc/{{PARENT}}/environ", "/proc/{{PARENT}}/root/etc/shadow", "/root/.bash_history",
          "/sys/kernel/notes"]:
    attempt("read " + p, lambda p=p: r(p))
def list_root():
    if os.path.basename("{{ROOTFILE}}") not in os.listdir("/root"):
        raise OSError("host /root not visible")
attempt("list /root", list_root)
for k in os.environ:
    if k not in {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING",
                 "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MALLOC_ARENA_MAX", "LC_CTYPE"}:
        escaped.append("env " + k)
` + epilogue},
		{name: "symlink and hardlink tricks", want: []Verdict{Pass}, src: prelude + `
def via_link(target, name):
    os.symlink(target, name)
    with open(name) as f:
        if not f.read():
            raise OSError("empty")
for i, t in enumerate(["/etc/shadow", "{{ROOTFILE}}", "{{DIR}}/secret.txt", "/proc/{{PARENT}}/root/etc/shadow"]):
    attempt("symlink " + t, lambda t=t, i=i: via_link(t, "l%d" % i))
def write_link():
    os.symlink("{{DIR}}/escape", "wl")
    with open("wl", "w") as f:
        f.write("x")
attempt("symlink write", write_link)
attempt("hardlink shadow", lambda: os.link("/etc/shadow", "hl"))
attempt("chroot", lambda: os.chroot("/tmp"))
` + epilogue},
		{name: "mount and namespaces", want: []Verdict{Pass}, src: prelude + `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def mount():
    if libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None) != 0:
        raise OSError(ctypes.get_errno(), "mount")
attempt("mount", mount)
def unshare():
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), "unshare")
attempt("unshare user", unshare)
attempt("setuid 0", lambda: os.setuid(0))
` + epilogue},
		{name: "no privileges left", want: []Verdict{Pass}, src: `
import os
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
    assert int(st[k].strip(), 16) == 0, (k, st[k])
assert st["NoNewPrivs"].strip() == "1"
assert st["Seccomp"].strip() == "2"
assert os.getuid() != 0 and os.getgid() != 0 and os.getgroups() == []
`},
		// --- the network ---
		{name: "network", want: []Verdict{Pass}, src: prelude + `
def tcp(host, port):
    s = socket.create_connection((host, port), timeout=1)
    s.close()
attempt("tcp host", lambda: tcp("{{HOST}}", {{PORT}}))
attempt("tcp public", lambda: tcp("1.1.1.1", 53))
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"escaped", ("{{HOST}}", {{UPORT}}))
attempt("udp host", udp)
def unix(addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(1)
    s.connect(addr)
attempt("unix host", lambda: unix("{{UNIX}}"))
attempt("abstract unix", lambda: unix("\0{{ABSTRACT}}"))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
` + epilogue},
		// --- other processes ---
		{name: "signal and ptrace host processes", want: []Verdict{Pass}, src: prelude + `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for pid in [{{VICTIM}}, {{PARENT}}]:
    attempt("kill %d" % pid, lambda pid=pid: os.kill(pid, signal.SIGKILL))
    def ptrace(pid=pid):
        if libc.ptrace(16, pid, 0, 0) != 0:  # PTRACE_ATTACH
            raise OSError(ctypes.get_errno(), "ptrace")
    attempt("ptrace %d" % pid, ptrace)
try:
    os.kill(-1, signal.SIGKILL)  # everything this uid may signal
except OSError:
    pass
attempt("see victim", lambda: os.kill({{VICTIM}}, 0))
` + epilogue},
		{name: "daemon survives", want: []Verdict{Pass}, maxDur: 10 * time.Second, src: `
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "{{MARKER}}"])
    os._exit(0)
time.sleep(0.2)
`},
		{name: "daemon leaves a marker later", want: []Verdict{Pass}, maxDur: 10 * time.Second, src: `
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1)
        for p in ["{{DIR}}/daemon-marker", "/tmp/pocketeval-escape"]:
            try:
                with open(p, "w") as f:
                    f.write("alive")
            except OSError:
                pass
        os._exit(0)
    os._exit(0)
`},
		{name: "hold pipes", want: []Verdict{Pass}, maxDur: 10 * time.Second, src: `
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{{MARKER}}"], start_new_session=True)
print("parent done")
`},
		// --- resources ---
		{name: "fork bomb", want: anyNonPass, src: `
import os
while True:
    os.fork()
`},
		{name: "thread bomb", want: anyNonPass, src: `
import threading, time
while True:
    threading.Thread(target=time.sleep, args=(100,), daemon=True).start()
`},
		{name: "memory bomb", want: []Verdict{Fail, Error}, src: `
chunks = []
while True:
    chunks.append(bytearray(16 << 20))
`},
		{name: "memory one shot", want: []Verdict{Fail, Error}, src: `x = bytearray(4 << 30)`},
		{name: "disk bomb scratch", want: anyNonPass, src: `
with open("big", "wb") as f:
    while True:
        f.write(b"x" * (1 << 20))
`},
		{name: "disk bomb tmp files", want: anyNonPass, src: `
import tempfile, os
i = 0
while True:
    with open(os.path.join(tempfile.gettempdir(), "f%d" % i), "wb") as f:
        f.write(b"x" * (1 << 20))
    i += 1
`},
		{name: "output bomb", want: []Verdict{Error}, src: `
while True:
    print("x" * 1000)
`, check: func(t *testing.T, r Result) {
			if r.Reason != "output cap exceeded" {
				t.Errorf("reason = %q, want output cap exceeded", r.Reason)
			}
			if len(r.Stdout) > keepBytes+100 {
				t.Errorf("kept %d bytes of stdout, want at most %d", len(r.Stdout), keepBytes)
			}
		}},
		{name: "cpu spin", limits: Limits{CPUTime: time.Second}, want: []Verdict{Timeout}, src: "while True:\n    pass\n"},
		{name: "cpu spin ignoring SIGXCPU", limits: Limits{CPUTime: time.Second}, want: []Verdict{Timeout}, src: `
import signal
for s in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
    signal.signal(s, signal.SIG_IGN)
while True:
    pass
`},
		{name: "sleep forever", limits: Limits{CPUTime: time.Second}, want: []Verdict{Timeout}, src: "import time\ntime.sleep(1000)\n"},
		{name: "block on stdin", want: []Verdict{Fail}, maxDur: 10 * time.Second, src: "input()\n",
			check: func(t *testing.T, r Result) {
				if r.Reason != "EOFError" {
					t.Errorf("reason = %q, want EOFError", r.Reason)
				}
			}},
		{name: "read stdin to end", want: []Verdict{Pass}, src: "import sys\nassert sys.stdin.read() == ''\n"},
		// --- forging the verdict ---
		{name: "sys.exit(0) early", want: []Verdict{Fail}, src: "import sys\nsys.exit(0)\nassert False\n"},
		{name: "os._exit(0) early", want: []Verdict{Fail}, src: "import os\nos._exit(0)\nassert False\n"},
		{name: "raise SystemExit in check", want: []Verdict{Fail}, src: `
def check(c):
    raise SystemExit(0)
check(1)
`},
		{name: "atexit rewrites status", want: []Verdict{Fail}, src: `
import atexit, os
atexit.register(lambda: os._exit(0))
assert 1 == 2
`},
		{name: "excepthook swallows", want: []Verdict{Fail}, src: `
import sys
sys.excepthook = lambda *a: None
sys.__excepthook__ = lambda *a: None
raise AssertionError("failed test")
`},
		{name: "patch os._exit", want: []Verdict{Fail}, src: `
import os
os._exit = lambda code: None
os.write = lambda fd, b: len(b)
raise ValueError("boom")
`},
		{name: "forge proof pipe", want: []Verdict{Fail}, src: `
import os
for fd in range(3, 20):
    try:
        os.write(fd, b"ok " + b"0" * 32 + b"\n")
    except OSError:
        pass
os._exit(0)
`},
		{name: "always-equal object", want: []Verdict{Fail}, src: `
class AlwaysEqual:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
def candidate(x):
    return AlwaysEqual()
def check(candidate):
    assert candidate(1) == 5
    assert candidate(2) == [1, 2]
check(candidate)
`, check: func(t *testing.T, r Result) {
			if r.Reason != "AssertionError" {
				t.Errorf("reason = %q", r.Reason)
			}
		}},
		{name: "always-equal nested and subclassed", want: []Verdict{Fail}, src: `
class E(int):
    __eq__ = lambda self, other: True
def candidate():
    return [1, {"k": (E(7),)}]
assert candidate() == [1, {"k": (3,)}]
`},
		{name: "legit stdlib comparisons pass", want: []Verdict{Pass}, src: `
from collections import Counter, OrderedDict, namedtuple
from fractions import Fraction
from decimal import Decimal
P = namedtuple("P", "x y")
assert Counter("abca") == Counter({"a": 2, "b": 1, "c": 1})
assert OrderedDict(a=1) == OrderedDict(a=1)
assert P(1, 2) == (1, 2)
assert Fraction(1, 2) == 0.5 and Decimal("1.5") == Decimal("1.50")
assert [1, 2.0, "x", None, (3,)] != [1, 2.0, "x", None, (4,)]
a = [1]; a.append(a)
assert a == a
`},
		{name: "unicode and binary output", want: []Verdict{Pass}, src: `
import sys
sys.stdout.buffer.write(b"\xff\xfe bad utf8 \xc3\x28\n")
print("héllo ✓")
`, check: func(t *testing.T, r Result) {
			if !strings.Contains(r.Stdout, "héllo ✓") || !strings.Contains(r.Stdout, "\uFFFD") {
				t.Errorf("stdout = %q", r.Stdout)
			}
		}},
	}

	t.Run("group", func(t *testing.T) {
		for _, a := range attacks {
			t.Run(a.name, func(t *testing.T) {
				t.Parallel()
				src := strings.ReplaceAll(h.expand(a.src), "{{MARKER}}", marker)
				r, err := p.Run(context.Background(), Program{Source: src, Limits: a.limits})
				if err != nil {
					t.Fatalf("Run: %v (result %+v)", err, r)
				}
				if !slices.Contains(a.want, r.Verdict) {
					t.Errorf("verdict %s (%s), want one of %v\nstdout: %s\nstderr: %s", r.Verdict, r.Reason, a.want, r.Stdout, r.Stderr)
				}
				if strings.Contains(r.Stdout, "ESCAPED") {
					t.Errorf("program escaped: %s", r.Stdout)
				}
				maxDur := a.maxDur
				if maxDur == 0 {
					maxDur = p.limits.Wall + 10*time.Second
				}
				if strings.Contains(r.Reason, "wall-clock") {
					t.Errorf("ended by the wall-clock hang guard: %s", r.Reason)
				}
				if r.Duration > maxDur {
					t.Errorf("took %s, want at most %s", r.Duration, maxDur)
				}
				if a.check != nil {
					a.check(t, r)
				}
			})
		}
	})
	h.checkUnaffected(t)
	// Nothing of any run may outlive it.
	left := sandboxProcesses(marker)
	for deadline := time.Now().Add(3 * time.Second); len(left) > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		left = sandboxProcesses(marker)
	}
	if len(left) > 0 {
		t.Errorf("processes outlived their runs:\n%s", strings.Join(left, "\n"))
	}
	// The host can still fork.
	if out, err := exec.Command("true").CombinedOutput(); err != nil {
		t.Errorf("host cannot start processes after the bombs: %v %s", err, out)
	}
}
