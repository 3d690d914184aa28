package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/sandbox"
)

// TestAdvice: the libraries' typed errors name no flag; the command line
// adds the flag that fixes each, and nothing to other errors.
func TestAdvice(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&runner.ConfigMismatchError{Dir: "d", Diffs: []string{"x"}}, "use --force to start over, or choose another --out"},
		{fmt.Errorf("run: %w", &runner.ResumeError{Dir: "d", Err: fmt.Errorf("bad")}), "start over with --force"},
		{&runner.OutNotEmptyError{Dir: "d"}, "choose an empty --out"},
		{&results.LockedError{Dir: "d"}, "choose another --out"},
		{fmt.Errorf("load: %w", &evals.FewShotError{Task: "bbh", Requested: 5, Allowed: []int{3, 0}}), "use --num-fewshot 3 or 0"},
		{&evals.OptionalDataError{Task: "gsm8k", Err: fmt.Errorf("x")}, "datasets download --optional gsm8k"},
		{fmt.Errorf("sandbox: %w: no set-up", sandbox.ErrInsufficientIsolation), "--unsafe-no-sandbox"},
	} {
		if got := withAdvice(tt.err); !strings.HasPrefix(got, tt.err.Error()+"\n") || !strings.Contains(got, tt.want) {
			t.Errorf("withAdvice(%T) = %q, want the error then %q", tt.err, got, tt.want)
		}
		if strings.Contains(tt.err.Error(), "--") {
			t.Errorf("%T's own message names a flag: %q", tt.err, tt.err.Error())
		}
	}
	if got := withAdvice(fmt.Errorf("plain")); got != "plain" {
		t.Errorf("withAdvice(plain) = %q, want the message alone", got)
	}
}
