package sandbox

import (
	"fmt"
	"strings"
	"syscall"
	"time"
)

// exitSetup is the helper's exit status when it fails to set up; the
// reason is written to the proof pipe with setupPrefix.
const (
	exitSetup   = 120
	setupPrefix = "setup-error: "
)

// outcome is everything the supervisor observed about one run; classify
// turns it into a verdict. It is a plain value so the mapping is tested
// without running anything.
type outcome struct {
	Nonce     string
	Proof     string // what the proof pipe carried
	Exited    bool   // exited normally (not by a signal)
	ExitCode  int
	Signal    syscall.Signal
	WallOut   bool // the wall-clock timer fired
	OutputCap bool // stdout+stderr passed the cap
	OOM       bool // the cgroup recorded an OOM kill
	CPULimit  time.Duration
	Wall      time.Duration
}

// classify maps an outcome to a verdict and a short reason:
//   - the helper reported a set-up failure: error;
//   - the wall-clock timer fired: timeout;
//   - the output cap was passed, or the cgroup recorded an OOM kill: error;
//   - SIGXCPU, or a SIGKILL the supervisor did not send and the OOM killer
//     did not record: timeout (the kernel kills at RLIMIT_CPU's hard limit;
//     the program as pid 1 of its namespace ignores SIGXCPU);
//   - any other killing signal (SIGSEGV, SIGSYS, SIGXFSZ ...): error;
//   - exit 0 with "ok <nonce>" on the proof pipe: pass;
//   - anything else (exception, non-zero exit, exit 0 before the end): fail.
func classify(o outcome) (Verdict, string) {
	proof := strings.TrimSpace(o.Proof)
	if strings.HasPrefix(proof, setupPrefix) && o.Exited && o.ExitCode == exitSetup {
		return Error, "sandbox " + firstLine(proof)
	}
	if o.WallOut {
		return Timeout, fmt.Sprintf("wall-clock limit exceeded after %s", o.Wall.Round(time.Millisecond))
	}
	if o.OutputCap {
		return Error, "output cap exceeded"
	}
	if o.OOM {
		return Error, "out of memory (killed by the kernel)"
	}
	if !o.Exited && (o.Signal == syscall.SIGXCPU || o.Signal == syscall.SIGKILL) {
		return Timeout, fmt.Sprintf("CPU-time limit %s exceeded", o.CPULimit)
	}
	if !o.Exited {
		return Error, "killed by signal " + signalName(o.Signal)
	}
	if o.ExitCode == 0 && o.Nonce != "" && proof == "ok "+o.Nonce {
		return Pass, ""
	}
	if exc, ok := strings.CutPrefix(proof, "exc "); ok {
		return Fail, firstLine(exc)
	}
	if o.ExitCode == 0 {
		return Fail, "exited before the end (no run-to-completion proof)"
	}
	return Fail, fmt.Sprintf("exit status %d before the end", o.ExitCode)
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
