package evals

import "strings"

// Reasoning-block markers, as Qwen3, DeepSeek-R1, SmolLM3 and MNN-Pocket
// write them.
const (
	ThinkOpen  = "<think>"
	ThinkClose = "</think>"
)

// Thinking states recorded per sample (results.Record.Thinking).
const (
	// ThinkingClosed: the response reasoned and closed the block.
	ThinkingClosed = "closed"
	// ThinkingTruncated: the reasoning block was still open when the token
	// limit was reached, so no answer followed.
	ThinkingTruncated = "truncated"
	// ThinkingUnterminated: the reasoning block never closed although the
	// model stopped by itself (end-of-sequence or a stop string).
	ThinkingUnterminated = "unterminated"
)

// Thinking is a response split into its reasoning and its answer.
type Thinking struct {
	// Answer is what scorers judge: the response without reasoning blocks.
	Answer string
	// Reasoning is the text inside the blocks, joined by newlines.
	Reasoning string
	// State is "" when the response has no reasoning block, else
	// ThinkingClosed, ThinkingTruncated or ThinkingUnterminated.
	State string
}

// SplitThinking separates reasoning from the answer. openedByPrompt says
// the rendered prompt ended inside a reasoning block (DeepSeek-R1's
// template ends its generation prompt with "<think>\n"), so the response
// starts as reasoning. truncated says generation stopped at the token
// limit.
//
// Every <think>…</think> block is removed; a closing tag without an
// opening one ends reasoning that began before it (in the prompt, or a
// template that writes the opening tag itself); an opening tag that never
// closes makes the rest reasoning, with no answer — "truncated" when the
// token limit cut it, "unterminated" otherwise. A response without any
// tag, and not opened by the prompt, is returned unchanged (a code
// completion's leading indentation matters); otherwise the answer is
// trimmed of surrounding blank space.
func SplitThinking(response string, openedByPrompt, truncated bool) Thinking {
	if !openedByPrompt && !strings.Contains(response, ThinkOpen) && !strings.Contains(response, ThinkClose) {
		return Thinking{Answer: response}
	}
	var answer, reasoning []string
	s, inside, closed := response, openedByPrompt, false
	for {
		if inside {
			j := strings.Index(s, ThinkClose)
			if j < 0 {
				reasoning = append(reasoning, s)
				th := Thinking{Answer: strings.TrimSpace(strings.Join(answer, "")), Reasoning: strings.Join(reasoning, "\n"), State: ThinkingUnterminated}
				if truncated {
					th.State = ThinkingTruncated
				}
				return th
			}
			reasoning = append(reasoning, s[:j])
			s, inside, closed = s[j+len(ThinkClose):], false, true
			continue
		}
		i := strings.Index(s, ThinkOpen)
		k := strings.Index(s, ThinkClose)
		if k >= 0 && (i < 0 || k < i) {
			// A closing tag without an opening one: what came before it
			// (since the last block) was reasoning too.
			reasoning = append(reasoning, strings.Join(answer, "")+s[:k])
			answer = nil
			s, closed = s[k+len(ThinkClose):], true
			continue
		}
		if i < 0 {
			answer = append(answer, s)
			break
		}
		answer = append(answer, s[:i])
		s, inside = s[i+len(ThinkOpen):], true
	}
	th := Thinking{Answer: strings.TrimSpace(strings.Join(answer, "")), Reasoning: strings.Join(reasoning, "\n")}
	if closed {
		th.State = ThinkingClosed
	}
	return th
}

// StripThinking returns the answer part of a response (SplitThinking with
// no reasoning opened by the prompt).
func StripThinking(s string) string { return SplitThinking(s, false, false).Answer }

// PromptOpensThinking reports whether a rendered prompt ends inside a
// reasoning block: its last <think> comes after its last </think>.
func PromptOpensThinking(rendered string) bool {
	i := strings.LastIndex(rendered, ThinkOpen)
	return i >= 0 && i > strings.LastIndex(rendered, ThinkClose)
}
