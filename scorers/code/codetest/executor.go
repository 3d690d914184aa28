// Package codetest provides a sandbox.Executor for TESTS ONLY: it runs each
// program with the host's python3 in a plain subprocess. It has no isolation
// at all — no namespaces, no filesystem or network restrictions — only
// limits: a CPU-time rlimit, a wall-clock timer that kills the whole process
// group, an output cap, stdin from /dev/null, an explicit environment and a
// fresh temporary working directory.
//
// It exists so the code scorers and tasks can be tested before, and
// independently of, the real sandbox. Never use it for model-written code
// outside tests; pocketeval's runs use package sandbox.
package codetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
)

// Executor runs Python programs in plain subprocesses. Create it with New.
type Executor struct {
	python   string
	defaults sandbox.Limits
	slots    chan struct{}
}

var _ sandbox.Executor = (*Executor)(nil)

// Config configures New. The zero value is usable.
type Config struct {
	// Python is the interpreter; "" picks /usr/bin/python3 when present
	// (fast start-up), else the real binary behind python3 on PATH.
	Python string
	// Workers bounds concurrent programs; 0 means GOMAXPROCS.
	Workers int
	// Defaults apply where a Program's Limits are zero; zero fields here
	// mean 10 s wall clock, 10 s CPU, 2 GiB address space, 1 MiB output.
	Defaults sandbox.Limits
}

// ErrNoPython is returned by New when no Python 3 interpreter is found.
var ErrNoPython = errors.New("no python3 interpreter found")

// New returns an Executor.
func New(cfg Config) (*Executor, error) {
	py := cfg.Python
	if py == "" {
		var err error
		if py, err = findPython(); err != nil {
			return nil, err
		}
	}
	w := cfg.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	d := cfg.Defaults
	if d.Timeout == 0 {
		d.Timeout = 10 * time.Second
	}
	if d.CPUTime == 0 {
		d.CPUTime = 10 * time.Second
	}
	if d.MemoryBytes == 0 {
		d.MemoryBytes = 2 << 30
	}
	if d.OutputBytes == 0 {
		d.OutputBytes = 1 << 20
	}
	return &Executor{python: py, defaults: d, slots: make(chan struct{}, w)}, nil
}

// Python returns the interpreter the executor runs.
func (e *Executor) Python() string { return e.python }

func findPython() (string, error) {
	if fi, err := os.Stat("/usr/bin/python3"); err == nil && !fi.IsDir() {
		return "/usr/bin/python3", nil
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		return "", fmt.Errorf("find python: %w", ErrNoPython)
	}
	// Resolve shims (pyenv's is a bash script that costs ~100 ms a run).
	out, err := exec.Command(p, "-c", "import os,sys;print(os.path.realpath(sys.executable))").Output()
	if err != nil {
		return "", fmt.Errorf("find python: resolve %s: %w", p, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// wrapper runs the program file argv[1] as __main__ under the limits, and
// proves it ran to its end by writing argv[2] (a per-run nonce) to fd 3.
// An early sys.exit / SystemExit, whatever its code, is a failure.
const wrapper = `import os, sys, resource
path, nonce, cpu, mem = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
proof = os.fdopen(3, "w")
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
if mem > 0:
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
sys.argv = [path]
with open(path, encoding="utf-8") as f:
    src = f.read()
g = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
try:
    code = compile(src, path, "exec")
    del src, f
    exec(code, g)
except SystemExit as e:
    sys.stderr.write("SystemExit: early exit (%r)\n" % (e.code,))
    sys.stderr.flush()
    os._exit(1)
except BaseException:
    import traceback
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(1)
sys.stdout.flush()
sys.stderr.flush()
proof.write(nonce)
proof.flush()
os._exit(0)
`

// Run executes one program.
func (e *Executor) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return sandbox.Result{}, fmt.Errorf("run program: %w", ctx.Err())
	}
	defer func() { <-e.slots }()

	lim := p.Limits
	if lim.Timeout == 0 {
		lim.Timeout = e.defaults.Timeout
	}
	if lim.CPUTime == 0 {
		lim.CPUTime = e.defaults.CPUTime
	}
	if lim.MemoryBytes == 0 {
		lim.MemoryBytes = e.defaults.MemoryBytes
	}
	if lim.OutputBytes == 0 {
		lim.OutputBytes = e.defaults.OutputBytes
	}

	dir, err := os.MkdirTemp("", "codetest-")
	if err != nil {
		return sandbox.Result{}, fmt.Errorf("run program: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "program.py")
	if err := os.WriteFile(file, []byte(p.Source), 0o600); err != nil {
		return sandbox.Result{}, fmt.Errorf("run program: %w", err)
	}
	nonceBytes := make([]byte, 16)
	if _, err := rand.Read(nonceBytes); err != nil {
		return sandbox.Result{}, fmt.Errorf("run program: %w", err)
	}
	nonce := hex.EncodeToString(nonceBytes)
	proofR, proofW, err := os.Pipe()
	if err != nil {
		return sandbox.Result{}, fmt.Errorf("run program: %w", err)
	}
	defer proofR.Close()

	cpuSec := int((lim.CPUTime + time.Second - 1) / time.Second)
	runCtx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, e.python, "-I", "-B", "-c", wrapper,
		file, nonce, fmt.Sprint(cpuSec), fmt.Sprint(lim.MemoryBytes))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir,
		"LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1", "OMP_NUM_THREADS=1"}
	cmd.Stdin = nil // /dev/null
	out := &capped{limit: lim.OutputBytes}
	cmd.Stdout = &stream{c: out, which: 1}
	cmd.Stderr = &stream{c: out, which: 2}
	cmd.ExtraFiles = []*os.File{proofW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out.kill = func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		proofW.Close()
		return sandbox.Result{}, fmt.Errorf("run program: start %s: %w", e.python, err)
	}
	proofW.Close()
	proofCh := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(proofR, 64))
		proofCh <- string(b)
	}()
	waitErr := cmd.Wait()
	dur := time.Since(start)
	// Kill leftovers of the process group (daemonised children).
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	// The proof is in the pipe once the program has exited; a descendant
	// that escaped the group kill could hold the write end open, so do not
	// wait for EOF forever.
	var proof string
	select {
	case proof = <-proofCh:
	case <-time.After(time.Second):
		proofR.Close()
		proof = <-proofCh
	}

	res := sandbox.Result{Duration: dur}
	res.Stdout, res.Stderr = out.strings()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ws.Signaled() {
		res.Signal = ws.Signal().String()
	}
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("run program: %w", ctx.Err())
	case out.exceeded():
		res.Verdict, res.Reason = sandbox.Error, "output cap exceeded"
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		res.Verdict, res.Reason = sandbox.Timeout, fmt.Sprintf("wall-clock limit %s exceeded", lim.Timeout)
	case ws.Signaled() && ws.Signal() == syscall.SIGXCPU,
		ws.Signaled() && ws.Signal() == syscall.SIGKILL &&
			cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime() >= lim.CPUTime:
		res.Verdict, res.Reason = sandbox.Timeout, fmt.Sprintf("cpu-time limit %s exceeded", lim.CPUTime)
	case ws.Signaled():
		res.Verdict, res.Reason = sandbox.Error, "killed by "+ws.Signal().String()
	case waitErr == nil && res.ExitCode == 0 && proof == nonce:
		res.Verdict = sandbox.Pass
	case res.ExitCode == 0:
		res.Verdict, res.Reason = sandbox.Fail, "exited before the end of the program"
	default:
		res.Verdict = sandbox.Fail
	}
	return res, nil
}

// capped collects stdout and stderr up to a shared limit and kills the
// program past it.
type capped struct {
	mu       sync.Mutex
	limit    int64
	total    int64
	out, err bytes.Buffer
	kill     func()
	killed   bool
}

func (c *capped) write(which int, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	room := c.limit - int64(c.out.Len()+c.err.Len())
	if room > 0 {
		q := p
		if int64(len(q)) > room {
			q = q[:room]
		}
		if which == 1 {
			c.out.Write(q)
		} else {
			c.err.Write(q)
		}
	}
	if c.total > c.limit && !c.killed && c.kill != nil {
		c.killed = true
		c.kill()
	}
}

func (c *capped) exceeded() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total > c.limit
}

func (c *capped) strings() (string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.ToValidUTF8(c.out.String(), "\uFFFD"), strings.ToValidUTF8(c.err.String(), "\uFFFD")
}

type stream struct {
	c     *capped
	which int
}

func (s *stream) Write(p []byte) (int, error) {
	s.c.write(s.which, p)
	return len(p), nil
}
