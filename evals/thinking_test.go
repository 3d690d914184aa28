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

func TestSplitThinking(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                  string
		in                    string
		opened, truncated     bool
		answer, reason, state string
	}{
		{"no thinking", "42", false, false, "42", "", ""},
		{"no thinking, cut off", "4", false, true, "4", "", ""},
		{"closed block", "<think>\n6*7\n</think>\n\n42", false, false, "42", "\n6*7\n", ThinkingClosed},
		{"Qwen3 thinking off (empty block in the prompt)", "42", false, false, "42", "", ""},
		{"cut off while thinking", "<think>\nlet me see, 6 times", false, true, "", "\nlet me see, 6 times", ThinkingTruncated},
		{"stopped while thinking", "<think>\nhmm", false, false, "", "\nhmm", ThinkingUnterminated},
		{"prompt opened: closed", "6*7 is 42\n</think>\n\nThe answer is 42.", true, false, "The answer is 42.", "6*7 is 42\n", ThinkingClosed},
		{"prompt opened: cut off, no tag at all", "6 times 7, carry the", true, true, "", "6 times 7, carry the", ThinkingTruncated},
		{"prompt opened: empty response", "", true, true, "", "", ThinkingTruncated},
		{"two blocks", "<think>a</think>x <think>b</think>y", false, false, "x y", "a\nb", ThinkingClosed},
		{"answer then unfinished block", "x <think>b", false, true, "x", "b", ThinkingTruncated},
	} {
		got := SplitThinking(c.in, c.opened, c.truncated)
		if got.Answer != c.answer || got.Reasoning != c.reason || got.State != c.state {
			t.Errorf("%s: SplitThinking(%q, %v, %v) = %+v, want answer %q reasoning %q state %q",
				c.name, c.in, c.opened, c.truncated, got, c.answer, c.reason, c.state)
		}
	}
}

func TestPromptOpensThinking(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"<|im_start|>assistant\n":                        false,
		"<｜Assistant｜><think>\n":                         true,
		"<|im_start|>assistant\n<think>\n\n</think>\n\n": false,
		"<think>old</think>user turn<think>\n":           true,
	} {
		if got := PromptOpensThinking(in); got != want {
			t.Errorf("PromptOpensThinking(%q) = %v", in, got)
		}
	}
}
