package evals_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/code"
	"github.com/pocketeval/pocketeval/evals/ifeval"
)

// TestApplyOptions: run options reach exactly the tasks that declare their
// keys, over the options a task already has; a refused value names the
// task and unwraps to the task's error.
func TestApplyOptions(t *testing.T) {
	he := code.HumanEval(code.Options{})
	tasks := []evals.Task{ifeval.EN, he}
	out, err := evals.ApplyOptions(tasks, map[string]string{
		ifeval.OptionLangdetectSeed: "7",
		code.OptionVerdictMode:      code.VerdictIsolated,
		"unrelated":                 "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].(evals.Optioner).TaskOptions(); got[ifeval.OptionLangdetectSeed] != "7" || len(got) != 1 {
		t.Errorf("ifeval options = %v, want only the seed 7", got)
	}
	if got := out[1].(evals.Optioner).TaskOptions(); got[code.OptionVerdictMode] != code.VerdictIsolated || len(got) != 1 {
		t.Errorf("humaneval options = %v, want only the isolated verdict mode", got)
	}
	// Options already set stay when another key is applied.
	out2, err := evals.ApplyOptions(out[1:], map[string]string{code.OptionTimeLimitMode: code.TimeLimitsOfficial})
	if err != nil {
		t.Fatal(err)
	}
	got := out2[0].(evals.Optioner).TaskOptions()
	if got[code.OptionVerdictMode] != code.VerdictIsolated || got[code.OptionTimeLimitMode] != code.TimeLimitsOfficial {
		t.Errorf("options after a second apply = %v, want the verdict mode kept and the time-limit mode added", got)
	}
	// No key a task declares: the task itself comes back.
	if same, _ := evals.ApplyOptions(tasks, map[string]string{"unrelated": "x"}); same[0] != tasks[0] || same[1] != tasks[1] {
		t.Error("tasks given no option of theirs were rebuilt")
	}
	_, err = evals.ApplyOptions(tasks, map[string]string{ifeval.OptionLangdetectSeed: "-1"})
	var oe *evals.OptionError
	if !errors.As(err, &oe) || oe.Task != ifeval.EN.Info().Name {
		t.Fatalf("a bad seed: err = %v, want an OptionError for %s", err, ifeval.EN.Info().Name)
	}
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		t.Errorf("a bad seed: err = %v does not unwrap to the parse error", err)
	}
}
