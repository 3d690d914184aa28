package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/code"
)

// TestRunVerdictMode: --verdict-mode reaches the code tasks (their version
// records the isolated mode), leaves other tasks alone, and refuses an
// unknown mode as a usage error.
func TestRunVerdictMode(t *testing.T) {
	for _, tt := range []struct {
		args    string
		version string
	}{
		{"--tasks humaneval,alpha --out x", "1"},
		{"--tasks humaneval,alpha --out x --verdict-mode official", "1"},
		{"--tasks humaneval,alpha --out x --verdict-mode isolated", "1+isolated-verdicts"},
	} {
		io, _, _, _ := TestStreams()
		f := &Factory{IO: io, Tasks: func() []evals.Task { return []evals.Task{code.HumanEval(code.Options{}), cliTask{"alpha", 30}} }}
		var got *RunOptions
		cmd := NewCmdRun(f, func(o *RunOptions) error { got = o; return nil })
		cmd.SetArgs(strings.Fields(tt.args))
		cmd.SetOut(io.Out)
		cmd.SetErr(io.ErrOut)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		tasks, err := selectTasks(got)
		if err != nil {
			t.Fatal(err)
		}
		if tasks, err = got.withTaskOptions(tasks); err != nil {
			t.Fatal(err)
		}
		if v := tasks[0].Info().Version; v != tt.version {
			t.Errorf("%s: humaneval version %q, want %q", tt.args, v, tt.version)
		}
		if _, ok := tasks[1].(cliTask); !ok {
			t.Errorf("%s: alpha became %T", tt.args, tasks[1])
		}
	}
	_, err := (&RunOptions{VerdictMode: "strict"}).withTaskOptions([]evals.Task{code.HumanEval(code.Options{})})
	var fe *FlagError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "--verdict-mode") {
		t.Errorf("--verdict-mode strict: err = %v, want a usage error naming the flag", err)
	}
}
