package evals

import "testing"

func TestStripThinking(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain answer", "plain answer"},
		{"<think>hmm 41?</think>\nThe answer is 42.", "The answer is 42."},
		{"<think>a</think>x<think>b</think>y", "xy"},
		{"reasoning without opening tag</think>\n\\boxed{7}", "\\boxed{7}"},
		{"<think>never finished because of the token lim", ""},
		{"answer first <think>then unfinished", "answer first"},
		{"    return x\n", "    return x\n"},
		{"<think>a</think>\n  spaced  ", "spaced"},
	} {
		if got := StripThinking(c.in); got != c.want {
			t.Errorf("StripThinking(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
