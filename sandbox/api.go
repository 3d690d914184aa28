// Package sandbox runs untrusted, model-written Python programs in
// kernel-enforced isolation and returns a verdict: pass, fail, timeout or
// error. See docs/sandbox.md for the layers and the verdict rules.
package sandbox

import (
	"context"
	"time"
)

// Verdict is the outcome of running one program.
type Verdict string

const (
	// Pass: the program ran to its end (the run-to-completion proof was
	// delivered) and exited 0.
	Pass Verdict = "pass"
	// Fail: an exception, a non-zero exit, or an early exit (even
	// sys.exit(0) or os._exit(0) before the end).
	Fail Verdict = "fail"
	// Timeout: the wall-clock or CPU-time limit was hit.
	Timeout Verdict = "timeout"
	// Error: killed by the output cap, OOM, a signal, or the sandbox failed
	// to set up.
	Error Verdict = "error"
)

// Program is one whole Python program to run.
type Program struct {
	// Source is the complete program text.
	Source string
	// Limits override the executor's defaults where non-zero.
	Limits Limits
}

// Limits bound one run. Zero fields take the executor's defaults.
type Limits struct {
	Timeout     time.Duration // wall clock
	CPUTime     time.Duration // CPU seconds (verdicts stable under load)
	MemoryBytes int64
	OutputBytes int64 // stdout+stderr cap; past it the run is killed (error)
}

// Result is what a run produced.
type Result struct {
	Verdict  Verdict       `json:"verdict"`
	ExitCode int           `json:"exit_code"`
	Signal   string        `json:"signal,omitempty"`
	Reason   string        `json:"reason,omitempty"` // e.g. "AssertionError", "output cap exceeded"
	Stdout   string        `json:"stdout,omitempty"` // capped
	Stderr   string        `json:"stderr,omitempty"` // capped
	Duration time.Duration `json:"duration_ns"`
}

// Executor runs programs. Implementations are safe for concurrent use and
// bound their own parallelism.
type Executor interface {
	Run(ctx context.Context, p Program) (Result, error)
}
