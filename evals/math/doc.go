// Package math provides the math benchmark tasks: gsm8k, mgsm_<lang> (the
// eleven MGSM languages) and math500.
//
// Every task is chain-of-thought: the model reasons in free text and the
// scorer extracts the final answer twice, strictly (the answer must follow
// the cue the prompt asked for: "The final answer is N", "答案是 N",
// "#### N", or a \boxed{} for MATH) and flexibly (box, then any answer cue,
// then the last number; see scorers/mathx). Both accuracies are reported
// side by side with the extraction-failure rate and the share of responses
// cut off by the token limit. The primary metric is the flexible one:
// it measures whether the model solved the problem, not whether it
// followed the format; strict is what lm-evaluation-harness calls
// "strict-match" and is there to expose format drift.
//
// Reasoning wrapped in <think>…</think> — or ended by a lone </think> — is
// ignored by the scorers whether or not the run stripped it.
package math
