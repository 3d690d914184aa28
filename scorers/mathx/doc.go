// Package mathx provides answer extraction and answer equivalence for math
// benchmarks: numeric answers in free-form chain-of-thought text (GSM8K,
// MGSM) and LaTeX answers (MATH).
//
// Extraction comes in two strengths, mirroring lm-evaluation-harness:
//
//   - strict: the answer must follow an explicit cue ("#### 18",
//     "The answer is 18", "答案是 18") — the format the prompt asked for;
//   - flexible: whatever the model most plausibly meant, in order of
//     preference: the last \boxed{…}, the last answer cue, the last number.
//
// Both first drop reasoning that a model wrapped in <think>…</think>; a
// response with a lone closing </think> (a chat template that put the
// opening tag in the prompt) has everything before that tag dropped.
//
// Equivalent decides whether two MATH answers are the same answer. It
// normalises LaTeX the way the MATH benchmark's reference normaliser does
// (fractions, \left/\right, units, degrees, percent, spacing), extends it
// with structure (tuples and intervals element-wise, sets unordered) and
// finishes with a numeric check: both sides are evaluated as complex-valued
// expressions (fractions, roots, π, i, free variables at random points) and
// compared with a tight relative tolerance. The package intentionally does
// not do symbolic algebra: it never simplifies, factors or solves; see
// docs/math.md for the cases it declines.
package mathx
