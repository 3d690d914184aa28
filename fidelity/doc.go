// Package fidelity measures how far a candidate model (a quantization, an
// export to another package format, another runtime) is from its
// reference, token by token and answer by answer.
//
// The token-level comparison follows llama.cpp's `llama-perplexity
// --kl-divergence` step for step, so that its numbers can be checked
// against that tool:
//
//  1. A text is tokenized by the reference and cut into chunks of n_ctx
//     tokens (the tail that does not fill a chunk is dropped); each chunk
//     starts with BOS in place of its first token when the vocabulary adds
//     one, and only its second half is scored: the logits at positions
//     n_ctx/2 .. n_ctx-2, predicting the tokens after them. Prompts
//     (PromptSequences) are scored from their first position instead.
//  2. The reference evaluates the chunks once and its log-probabilities
//     are saved (Reference, WriteReference): every vocabulary entry
//     quantized to 16 bits over the 16 nats below the most likely token,
//     with two floats of scale — llama-perplexity's own encoding — so a
//     position costs 2·n_vocab+8 bytes, and the file's sha256 is recorded
//     beside it.
//  3. The candidate evaluates the same tokens; per position Compare
//     accumulates the KL divergence KL(reference ‖ candidate), whether the
//     two argmax tokens agree ("same top", top-1 agreement), whether the
//     two top-p nucleus sets are the same tokens, the probability change
//     of the actual next token and both negative log-likelihoods, from
//     which it derives both perplexities, their ratio and difference with
//     llama-perplexity's uncertainties (which account for the correlation
//     of the two).
//
// Intervals are 95% (1.96 standard errors; for quantiles a
// distribution-free order-statistic interval). The answer-level
// comparison (Flips) pairs the per-sample scores of two runs.
package fidelity
