package cli

import (
	"context"
	"strings"
	"testing"
)

func TestUnknownFlagSuggestion(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" = no suggestion
	}{
		{[]string{"run", "--num_fewshot", "5"}, "did you mean --num-fewshot?"},
		{[]string{"run", "--max_tokens", "5"}, "did you mean --max-tokens?"},
		{[]string{"run", "--Tasks", "x"}, "did you mean --tasks?"},
		{[]string{"run", "--limt", "5"}, "did you mean --limit?"},
		{[]string{"run", "--zzzzzzzz"}, ""},
		{[]string{"gate", "--polcy", "p.yaml"}, "did you mean --policy?"},
	} {
		f, _, errb := testFactory()
		if code := Execute(context.Background(), f, tt.args); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", tt.args, code, ExitUsage)
		}
		got := errb.String()
		if tt.want == "" && strings.Contains(got, "did you mean") || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%v: stderr %q, want suggestion %q", tt.args, got, tt.want)
		}
	}
}

func TestLimitFlag(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		err  string
	}{
		{"0", 0, ""}, {"40", 40, ""}, {"+7", 7, ""},
		{"0.5", 0, "fraction"}, {".25", 0, "fraction"},
		{"1.5", 0, "not a whole number"}, {"ten", 0, "not a whole number"}, {"1e2", 0, "not a whole number"}, {"12abc", 0, "not a whole number"},
	} {
		var v limitValue
		err := v.Set(tt.in)
		if tt.err == "" && (err != nil || int(v) != tt.want) {
			t.Errorf("Set(%q) = %d, %v; want %d", tt.in, v, err, tt.want)
		}
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Set(%q): error %v, want one saying %q", tt.in, err, tt.err)
		}
	}
	f, _, errb := testFactory()
	if code := Execute(context.Background(), f, []string{"run", "--runtime", "fake", "--tasks", "alpha", "--limit", "0.5"}); code != ExitUsage {
		t.Errorf("--limit 0.5: exit %d, want %d", code, ExitUsage)
	}
	if !strings.Contains(errb.String(), "whole number of samples per task") {
		t.Errorf("--limit 0.5: %q", errb.String())
	}
}
