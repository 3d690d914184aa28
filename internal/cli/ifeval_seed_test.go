package cli

import (
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/ifeval"
)

// TestRunIFEvalSeed: --ifeval-seed reaches the IFEval tasks (their version
// records a seed other than 0) and leaves other tasks alone.
func TestRunIFEvalSeed(t *testing.T) {
	for _, tt := range []struct {
		args    string
		version string
	}{
		{"--tasks ifeval,alpha --out x", "2"},
		{"--tasks ifeval,alpha --out x --ifeval-seed 0", "2"},
		{"--tasks ifeval,alpha --out x --ifeval-seed 7", "2+langdetect-seed.7"},
	} {
		io, _, _, _ := TestStreams()
		f := &Factory{IO: io, Tasks: func() []evals.Task { return []evals.Task{ifeval.EN, cliTask{"alpha", 30}} }}
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
		if v := tasks[0].Info().Version; v != tt.version {
			t.Errorf("%s: ifeval version %q, want %q", tt.args, v, tt.version)
		}
		if _, ok := tasks[1].(cliTask); !ok {
			t.Errorf("%s: alpha became %T", tt.args, tasks[1])
		}
	}
	if err := NewCmdRun(&Factory{IO: System()}, nil).ParseFlags([]string{"--ifeval-seed", "-1"}); err == nil {
		t.Error("--ifeval-seed -1 accepted")
	}
}
