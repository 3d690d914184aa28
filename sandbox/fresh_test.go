//go:build linux

package sandbox

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestFreshStatePerProgram: every program starts from a clean state. A
// program leaves everything it can behind — files in every writable place,
// changed and new modules, changed builtins, environment, System V IPC
// objects, a daemon — and the next program on the same worker (a pool of
// one) finds none of it, runs under another uid, and sees only itself and
// its PID namespace's init.
func TestFreshStatePerProgram(t *testing.T) {
	requireRoot(t)
	p, err := New(Config{Workers: 1, BaseUID: testBaseUID + 1000, Limits: Limits{CPUTime: 2 * time.Second, MemoryBytes: 256 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const leave = `import os, sys, json, re, builtins, ctypes, xml.dom.minidom, time
for d in ("/scratch", "/tmp", "/dev/shm"):
    with open(os.path.join(d, "left-behind"), "w") as f:
        f.write("x")
    os.mkdir(os.path.join(d, "left-dir"))
json.left = 1
re.compile = None
builtins.left = 1
sys.modules["left_module"] = sys
sys.path.insert(0, "/scratch")
os.environ["LEFT"] = "1"
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(0x5eed, 4096, 0o1666) >= 0, ctypes.get_errno()   # IPC_CREAT | 0666
assert libc.semget(0x5eed, 1, 0o1666) >= 0, ctypes.get_errno()
assert libc.msgget(0x5eed, 0o1666) >= 0, ctypes.get_errno()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
time.sleep(0.1)
print(os.getuid())
`
	const check = `import os, sys, json, re, builtins
left = []
for d in ("/scratch", "/tmp", "/dev/shm"):
    if set(os.listdir(d)) - {"main.py"}:
        left.append("%s: %s" % (d, os.listdir(d)))
if hasattr(json, "left") or re.compile is None or hasattr(builtins, "left"):
    left.append("module state")
if "left_module" in sys.modules or "xml.dom.minidom" in sys.modules or "/scratch" in sys.path:
    left.append("modules")
if "LEFT" in os.environ:
    left.append("environment")
for kind in ("shm", "sem", "msg"):
    lines = open("/proc/sysvipc/" + kind).read().splitlines()[1:]
    if lines:
        left.append("sysvipc %s: %s" % (kind, lines))
pids = sorted(int(n) for n in os.listdir("/proc") if n.isdigit())
if pids != [1, 2] or os.getpid() != 2:   # the namespace's init and the program
    left.append("processes %s" % pids)
assert re.compile("a+").match("aa")
assert not left, left
print(os.getuid())
`
	first, err := p.Run(context.Background(), Program{Source: leave})
	if err != nil || first.Verdict != Pass {
		t.Fatalf("leaving state behind: %s (%s) %v\n%s", first.Verdict, first.Reason, err, first.Stderr)
	}
	for i := range 3 {
		r, err := p.Run(context.Background(), Program{Source: check})
		if err != nil || r.Verdict != Pass {
			t.Fatalf("run %d after it: %s (%s) %v\n%s%s", i+1, r.Verdict, r.Reason, err, r.Stdout, r.Stderr)
		}
		if strings.TrimSpace(r.Stdout) == strings.TrimSpace(first.Stdout) {
			t.Errorf("run %d has the uid of the run before, %s", i+1, r.Stdout)
		}
		if _, err := strconv.Atoi(strings.TrimSpace(r.Stdout)); err != nil {
			t.Errorf("run %d printed %q, want its uid", i+1, r.Stdout)
		}
	}
	if left := sandboxProcesses(""); len(left) > 0 {
		t.Errorf("processes outlived their runs:\n%s", strings.Join(left, "\n"))
	}
}

// TestHarnessExec: ExecHarness runs the source as human-eval's harness
// does, and script mode as `python3 main.py` does.
func TestHarnessExec(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	tests := []struct {
		name string
		exec Exec
		src  string
		want Verdict
	}{
		{"script: __main__ block runs", ExecScript, "if __name__ == '__main__':\n    raise SystemExit(3)\n", Fail},
		{"script: __file__ and the __main__ module", ExecScript, "import sys, os\nassert __file__ == '/scratch/main.py' and os.path.exists(__file__)\nassert sys.modules['__main__'].__dict__ is globals()\n", Pass},
		{"harness: __main__ block does not run", ExecHarness, "if __name__ == '__main__':\n    raise SystemExit(3)\nassert __name__ == 'builtins'\n", Pass},
		{"harness: no __file__", ExecHarness, "__file__\n", Fail},
		{"harness: empty working directory", ExecHarness, "import os\nassert os.listdir('.') == [], os.listdir('.')\n", Pass},
		{"harness: exit is None", ExecHarness, "exit(0)\n", Fail},
		{"harness: os.getcwd is None", ExecHarness, "import os\nos.getcwd()\n", Fail},
		{"harness: stdin unreadable", ExecHarness, "import sys\nsys.stdin.read()\n", Fail},
		{"harness: prints are swallowed", ExecHarness, "for i in range(200000):\n    print('x' * 100)\n", Pass},
		{"harness: resource is blocked", ExecHarness, "import resource\n", Fail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := p.Run(context.Background(), Program{Source: tt.src, Exec: tt.exec})
			if err != nil || r.Verdict != tt.want {
				t.Errorf("%s (%s) %v, want %s\nstderr: %s", r.Verdict, r.Reason, err, tt.want, r.Stderr)
			}
			if len(r.Stdout) > keepBytes+100 {
				t.Errorf("kept %d bytes of stdout", len(r.Stdout))
			}
		})
	}
}

// TestComparisonGuardInBothModes: the comparison guard refuses an __eq__
// the program defines with its own message, and lets the standard
// library's through, in script mode and under the harness's
// reliability_guard (where os.getcwd is None and must not be needed).
func TestComparisonGuardInBothModes(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	const alwaysEqual = "class AlwaysEqual:\n    def __eq__(self, other):\n        return True\nassert AlwaysEqual() == 5\n"
	const stdlib = "from collections import Counter\nfrom fractions import Fraction\nassert Counter('abca') == Counter({'a': 2, 'b': 1, 'c': 1})\nassert Fraction(1, 2) == 0.5\n"
	for _, mode := range []Exec{ExecScript, ExecHarness} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			r, err := p.Run(context.Background(), Program{Source: alwaysEqual, Exec: mode})
			if err != nil || r.Verdict != Fail || r.Reason != "AssertionError" ||
				!strings.Contains(r.Stderr, "comparison refused: AlwaysEqual.__eq__ is defined by the program") {
				t.Errorf("program-defined __eq__: %s (%s) %v, want fail (AssertionError) with the guard's message\nstderr: %s", r.Verdict, r.Reason, err, r.Stderr)
			}
			if r, err := p.Run(context.Background(), Program{Source: stdlib, Exec: mode}); err != nil || r.Verdict != Pass {
				t.Errorf("standard library comparisons: %s (%s) %v, want pass\nstderr: %s", r.Verdict, r.Reason, err, r.Stderr)
			}
		})
	}
}

// TestExtraFiles: Program.ExtraFiles reach the program as fds 5, 6, ...
func TestExtraFiles(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	r1, w1, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	src := "import os\nos.write(5, b'five')\nos.write(6, b'six')\nos.close(5)\nos.close(6)\n"
	res, err := p.Run(context.Background(), Program{Source: src, ExtraFiles: []*os.File{w1, w2}})
	w1.Close()
	w2.Close()
	if err != nil || res.Verdict != Pass {
		t.Fatalf("%s (%s) %v\n%s", res.Verdict, res.Reason, err, res.Stderr)
	}
	for want, r := range map[string]*os.File{"five": r1, "six": r2} {
		b := make([]byte, 16)
		n, _ := r.Read(b)
		if string(b[:n]) != want {
			t.Errorf("read %q, want %q", b[:n], want)
		}
	}
}

// TestProcessLikeAFreshInterpreter: what a fresh `python3 -I main.py`
// would have, a forked program has too: SIGPIPE ignored (a write to a
// closed pipe raises BrokenPipeError), default SIGCHLD and SIGINT
// handling, its own random state, and stdin at /dev/null.
func TestProcessLikeAFreshInterpreter(t *testing.T) {
	requireRoot(t)
	p := testPool(t)
	src := `import os, signal, random, sys
assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN
assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
r, w = os.pipe()
os.close(r)
try:
    os.write(w, b"x")
    raise SystemExit("wrote to a closed pipe")
except BrokenPipeError:
    pass
assert sys.stdin.read() == ""
print(random.random())
`
	seen := map[string]bool{}
	for range 3 {
		r, err := p.Run(context.Background(), Program{Source: src})
		if err != nil || r.Verdict != Pass {
			t.Fatalf("%s (%s) %v\n%s", r.Verdict, r.Reason, err, r.Stderr)
		}
		seen[r.Stdout] = true
	}
	if len(seen) != 3 {
		t.Errorf("three programs drew %d distinct random numbers: the random state is shared", len(seen))
	}
}
