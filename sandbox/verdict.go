package sandbox

import (
	"fmt"
	"strings"
	"syscall"
	"time"
)

// exitSetup is the program process's exit status when it fails to set up;
// the reason is written to the proof pipe with setupPrefix.
const (
	exitSetup   = 120
	setupPrefix = "setup-error: "
)

// Proof-pipe lines the wrapper writes besides setup errors.
const (
	proofOK      = "ok "    // + nonce: the program ran to its end
	proofExc     = "exc "   // + exception type: the program raised
	proofAlarm   = "alarm"  // the harness timer (Limits.Alarm) fired inside the program
	reasonMemory = "memory" // prefix of every Error reason about memory
)

// killCause says why the supervisor killed a run (none when it did not).
type killCause int

const (
	killNone    killCause = iota
	killCPU               // the process tree used up its CPU time
	killIdle              // the program slept or blocked past Limits.Idle
	killStopped           // every task of the program was stopped past Limits.Stopped
	killWall              // the wall-clock hang guard (or the harness's join) fired
	killOutput            // stdout+stderr passed the cap
	killMemory            // the kernel OOM-killed a process of the tree: the rest goes at once
	killCancel            // the caller's context ended
)

// outcome is everything the supervisor observed about one run; classify
// turns it into a verdict. It is a plain value so the mapping is tested
// without running anything.
type outcome struct {
	Nonce    string
	Proof    string // what the proof pipe carried
	Exited   bool   // exited normally (not by a signal)
	ExitCode int
	Signal   syscall.Signal
	Killed   killCause
	OOM      bool // the cgroup recorded an OOM kill
	// MemLimit: the cgroup's memory limit was reached during the run
	// (the kernel failed an allocation or reclaimed at the limit).
	MemLimit bool
	// CPU is the tree's CPU time; RlimitCPU the per-process RLIMIT_CPU
	// soft limit (the kernel's backstop), 0 when not set.
	CPU       time.Duration
	CPULimit  time.Duration
	RlimitCPU time.Duration
	Limits    Limits
	Wall      time.Duration
	MemLimitB int64
}

// classify maps an outcome to a verdict and a short reason, in this order:
//   - the program process reported a set-up failure: error;
//   - stdout+stderr passed the cap: error;
//   - the cgroup recorded an OOM kill, or the memory limit was reached and
//     the program was then killed (reclaim at the limit): error, "memory";
//   - the supervisor killed it for CPU time, or the kernel did (SIGXCPU,
//     or a SIGKILL nobody else sent with the CPU time at the rlimit):
//     timeout;
//   - idle past Limits.Idle, stopped past Limits.Stopped, the wall-clock
//     guard, or the harness timer:
//     timeout;
//   - any other killing signal (SIGSEGV, SIGSYS, SIGXFSZ ...): error;
//   - exit 0 with "ok <nonce>" on the proof pipe: pass;
//   - anything else (an exception, MemoryError included; a non-zero exit;
//     exit 0 before the end): fail.
func classify(o outcome) (Verdict, string) {
	proof := strings.TrimSpace(o.Proof)
	if strings.HasPrefix(proof, setupPrefix) && o.Exited && o.ExitCode == exitSetup {
		return Error, "sandbox " + firstLine(proof)
	}
	if o.Killed == killOutput {
		return Error, "output cap exceeded"
	}
	signaled := !o.Exited
	if o.OOM || o.Killed == killMemory || (o.MemLimit && signaled && o.Killed != killCPU) {
		return Error, fmt.Sprintf("%s: killed at the memory limit (%s)", reasonMemory, formatBytes(o.MemLimitB))
	}
	rlimitKill := signaled && o.Killed == killNone && (o.Signal == syscall.SIGXCPU ||
		(o.Signal == syscall.SIGKILL && o.RlimitCPU > 0 && o.CPU >= o.RlimitCPU-500*time.Millisecond))
	if o.Killed == killCPU || rlimitKill {
		return Timeout, fmt.Sprintf("cpu time limit %s exceeded", o.CPULimit)
	}
	switch o.Killed {
	case killIdle:
		return Timeout, fmt.Sprintf("idle (sleeping or blocked) for %s", o.Limits.Idle)
	case killStopped:
		return Timeout, fmt.Sprintf("stopped (SIGSTOP or the like) for %s", o.Limits.Stopped)
	case killWall:
		if o.Limits.Alarm > 0 {
			return Timeout, fmt.Sprintf("harness timer %s exceeded (still running after %s)", o.Limits.Alarm, o.Limits.Wall)
		}
		return Timeout, fmt.Sprintf("wall-clock limit %s exceeded", o.Limits.Wall)
	}
	if proof == proofAlarm {
		return Timeout, fmt.Sprintf("harness timer %s exceeded", o.Limits.Alarm)
	}
	if signaled {
		return Error, "killed by signal " + signalName(o.Signal)
	}
	if o.ExitCode == 0 && o.Nonce != "" && proof == proofOK+o.Nonce {
		return Pass, ""
	}
	if exc, ok := strings.CutPrefix(proof, proofExc); ok {
		return Fail, firstLine(exc)
	}
	if o.ExitCode == 0 {
		return Fail, "exited before the end (no run-to-completion proof)"
	}
	return Fail, fmt.Sprintf("exit status %d before the end", o.ExitCode)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV", syscall.SIGSYS: "SIGSYS",
		syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
		syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGXCPU: "SIGXCPU", syscall.SIGTERM: "SIGTERM",
		syscall.SIGILL: "SIGILL", syscall.SIGPIPE: "SIGPIPE", syscall.SIGHUP: "SIGHUP",
		syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGALRM: "SIGALRM",
		syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2", syscall.SIGTRAP: "SIGTRAP",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("signal %d", int(s))
}
