package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// RollingLoglikelihooder is implemented by runtimes that score whole texts
// as lm-eval's loglikelihood_rolling does (perplexity tasks such as
// wikitext): the text's tokens are cut into windows the model can read,
// each scored given the token before it, and the log-probabilities summed.
type RollingLoglikelihooder interface {
	LoglikelihoodRolling(ctx context.Context, texts []string) ([]RollingResult, error)
}

// RollingResult is the log-likelihood of one whole text.
type RollingResult struct {
	LogProb float64 `json:"logprob"`
	// Tokens is the number of tokens scored, Windows the model calls.
	Tokens  int `json:"tokens"`
	Windows int `json:"windows"`
}

// Window is one model call of a rolling log-likelihood: Continuation is
// scored given Context (lm-eval's (context, continuation) pair after
// make_disjoint_window).
type Window struct {
	Context      []int32 `json:"context"`
	Continuation []int32 `json:"continuation"`
}

// RollingWindows returns lm-eval's windows for scoring tokens with a model
// that reads maxLen tokens: utils.get_rolling_token_windows(tokens,
// prefix, maxLen, context_len=1), each passed through make_disjoint_window.
// The first window predicts the first maxLen tokens after prefix; each
// following one the next maxLen tokens given the token before them.
func RollingWindows(tokens []int32, prefix int32, maxLen int) []Window {
	if len(tokens) == 0 || maxLen < 1 {
		return nil
	}
	const contextLen = 1
	predLen := maxLen - contextLen + 1
	var out []Window
	disjoint := func(a, b []int32) Window {
		return Window{Context: a[:len(a)-(len(b)-1)], Continuation: b}
	}
	first := min(maxLen, len(tokens))
	a := append([]int32{prefix}, tokens[:first-1]...)
	out = append(out, disjoint(a, tokens[:first]))
	predicted := first
	for predicted < len(tokens) {
		n := min(len(tokens)-predicted, predLen)
		end := predicted + n
		out = append(out, disjoint(pySlice(tokens, end-maxLen-1, end-1), tokens[end-n:end]))
		predicted += n
	}
	return out
}

// pySlice is Python's s[i:j] for j >= 0: a negative i counts from the end.
func pySlice(s []int32, i, j int) []int32 {
	if i < 0 {
		i = max(0, len(s)+i)
	}
	if i > j {
		return nil
	}
	return s[i:j]
}

// WindowInput is what a model of maxLen tokens reads for w, as lm-eval's
// _loglikelihood_tokens builds it: (context + continuation)[-(maxLen+1):]
// without its last token. The last len(w.Continuation) positions' logits
// score the continuation.
func WindowInput(w Window, maxLen int) []int32 {
	all := append(append([]int32(nil), w.Context...), w.Continuation...)
	if len(all) > maxLen+1 {
		all = all[len(all)-(maxLen+1):]
	}
	return all[:len(all)-1]
}

// LoglikRolling computes a RollingResult with a runtime that exposes
// logits: text tokenized without special tokens (lm-eval's tok_encode for
// causal models without add_bos_token), windows of maxLen tokens after
// the prefix token (BOS, else EOS, lm-eval's prefix_token_id), each
// evaluated from an empty cache.
func LoglikRolling(ctx context.Context, lg Logitser, text string, maxLen int) (RollingResult, error) {
	v := lg.Vocab()
	prefix := v.BOS
	if prefix < 0 {
		prefix = v.EOS
	}
	if prefix < 0 {
		return RollingResult{}, errors.New("loglikelihood_rolling: the vocabulary has neither BOS nor EOS to condition the first token on")
	}
	toks, err := lg.Tokenize(text, false)
	if err != nil {
		return RollingResult{}, err
	}
	var res RollingResult
	for wi, w := range RollingWindows(toks, prefix, maxLen) {
		inp := WindowInput(w, maxLen)
		from := len(inp) - len(w.Continuation)
		if from < 0 {
			return RollingResult{}, fmt.Errorf("loglikelihood_rolling: window %d: %d continuation tokens in an input of %d", wi, len(w.Continuation), len(inp))
		}
		// Each window's log-probabilities are summed, then the windows'
		// sums, in lm-eval's order (a window is one loglikelihood request).
		var wsum float64
		err := lg.Logits(ctx, inp, from, func(pos int, logits []float32) error {
			lp := LogSoftmax(logits, int(w.Continuation[pos-from]))
			if math.IsNaN(lp) || math.IsInf(lp, 0) {
				return fmt.Errorf("log-probability %v at window %d position %d", lp, wi, pos)
			}
			wsum += lp
			return nil
		})
		if err != nil {
			return RollingResult{}, fmt.Errorf("loglikelihood_rolling: window %d: %w", wi, err)
		}
		res.LogProb += wsum
		res.Tokens += len(w.Continuation)
		res.Windows++
	}
	return res, nil
}

// LogSoftmax returns log softmax(logits)[i], computed in float64.
func LogSoftmax(logits []float32, i int) float64 {
	m := float64(logits[0])
	for _, v := range logits {
		m = max(m, float64(v))
	}
	var sum float64
	for _, v := range logits {
		sum += math.Exp(float64(v) - m)
	}
	return float64(logits[i]) - m - math.Log(sum)
}
