package evals

import "strings"

// StripThinking removes reasoning blocks from a response before scoring:
// every <think>…</think> block is deleted; a closing </think> without an
// opening tag (templates that open the block in the prompt) drops everything
// before it; an unclosed <think> (thinking cut off by the token limit) drops
// everything from it, since no answer followed. Text without thinking tags
// is returned unchanged (a code completion's leading indentation matters);
// otherwise the remainder is trimmed of surrounding blank space.
func StripThinking(s string) string {
	const open, closeTag = "<think>", "</think>"
	if !strings.Contains(s, open) && !strings.Contains(s, closeTag) {
		return s
	}
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(open):], closeTag)
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+len(open)+j+len(closeTag):]
	}
	if k := strings.LastIndex(s, closeTag); k >= 0 {
		s = s[k+len(closeTag):]
	}
	return strings.TrimSpace(s)
}
