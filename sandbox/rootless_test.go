//go:build linux

package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const rootlessEnv = "POCKETEVAL_SANDBOX_ROOTLESS_INNER"

// TestRootlessMode re-runs this test binary as nobody so the rootless mode
// (user namespace, no cgroup, capabilities dropped) is exercised too.
func TestRootlessMode(t *testing.T) {
	requireRoot(t)
	if testing.Short() {
		t.Skip("re-runs the test binary as nobody; not -short")
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3 (readable by nobody)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pocketeval-rootless-") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	if err := copyFile(self, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^TestRootlessInner$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{rootlessEnv + "=1", "PATH=/usr/bin:/bin", "TMPDIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	t.Logf("inner test as nobody:\n%s", out)
	if err != nil {
		t.Fatalf("rootless inner test: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestRootlessInner") {
		t.Fatal("inner test did not run")
	}
}

func TestRootlessInner(t *testing.T) {
	if os.Getenv(rootlessEnv) == "" || os.Geteuid() == 0 {
		t.Skip("run by TestRootlessMode as an unprivileged user")
	}
	p, err := New(Config{Python: "/usr/bin/python3", Workers: 2, TempDir: os.Getenv("TMPDIR"),
		Limits: Limits{CPUTime: 2 * time.Second, MemoryBytes: 256 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ls := p.Layers()
	t.Logf("\n%s", ls)
	if ls.Mode != "rootless" || !ls.Active(LayerUserNS) || !ls.Active(LayerMountNS) || !ls.Active(LayerNetNS) {
		t.Fatalf("want rootless mode with user, mount and net namespaces")
	}
	tests := []struct {
		name, src string
		want      Verdict
		lim       Limits
	}{
		{"ordinary program", "assert sorted([3, 1, 2]) == [1, 2, 3]\nprint('ok')\n", Pass, Limits{}},
		{"contained", `import os, socket
for p in ["/etc/x", "/usr/x", "/x"]:
    try:
        open(p, "w"); raise SystemExit("wrote " + p)
    except OSError:
        pass
try:
    socket.create_connection(("127.0.0.1", 22), timeout=1); raise SystemExit("connected")
except OSError:
    pass
try:
    os.setuid(1); raise SystemExit("setuid")
except OSError:
    pass
assert os.getuid() == 0  # mapped, but without capabilities
try:
    os.chown("/scratch", 5, 5); raise SystemExit("chown without CAP_CHOWN")
except OSError:
    pass
`, Pass, Limits{}},
		{"fork bomb", "import os\nwhile True:\n    os.fork()\n", Fail, Limits{}},
		{"memory bomb (RLIMIT_AS)", "x = bytearray(2 << 30)\n", Fail, Limits{}},
		{"early exit", "import os\nos._exit(0)\n", Fail, Limits{}},
		{"cpu spin", "while True: pass\n", Timeout, Limits{}},
		// The zygote and the PID namespace's init share the uid's
		// RLIMIT_NPROC count here: the program still has its 64 tasks
		// (under the default memory limit: each thread's stack takes 8 MiB
		// of the address space).
		{"64 tasks", "import threading\nb = threading.Barrier(64)\nts = [threading.Thread(target=b.wait) for _ in range(63)]\n" +
			"for t in ts:\n    t.start()\nb.wait()\nfor t in ts:\n    t.join()\n", Pass, Limits{MemoryBytes: DefaultLimits.MemoryBytes}},
		{"self SIGKILL", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", Error, Limits{}},
	}
	for _, tt := range tests {
		r, err := p.Run(context.Background(), Program{Source: tt.src, Limits: tt.lim})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if r.Verdict != tt.want && !(tt.want == Fail && r.Verdict != Pass) {
			t.Errorf("%s: %s (%s), want %s\n%s%s", tt.name, r.Verdict, r.Reason, tt.want, r.Stdout, r.Stderr)
		}
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
