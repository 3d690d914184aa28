package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/ifeval"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
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
		if tasks, err = got.withTaskOptions(tasks); err != nil {
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

// TestMergeIFEvalSeedShards is issue 12's follow-up: three shards of an
// IFEval run with --ifeval-seed 7 (the official responses replayed) merge
// into what one run with seed 7 writes; merge used to refuse them because
// it rebuilt IFEval with seed 0 (version 2, not 2+langdetect-seed.7).
func TestMergeIFEvalSeedShards(t *testing.T) {
	t.Parallel()
	data := sharedtest.Datasets(t)
	preds := sharedtest.Dir(t, "conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl")
	run := func(out string, extra ...string) {
		t.Helper()
		args := append([]string{"run", "--runtime", "replay", "--predictions", preds, "--tasks", "ifeval",
			"--ifeval-seed", "7", "--data-dir", data, "--out", out}, extra...)
		if code, stdout, stderr := runReal(t, args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	whole := filepath.Join(t.TempDir(), "whole")
	run(whole)
	var shards []string
	for i := 0; i < 3; i++ {
		dir := filepath.Join(t.TempDir(), fmt.Sprintf("shard%d", i))
		run(dir, "--shard", fmt.Sprintf("%d/3", i))
		shards = append(shards, dir)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if code, stdout, stderr := runReal(t, append([]string{"merge", "--data-dir", data, "--out", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if a, b := summaryScores(t, whole), summaryScores(t, merged); a != b {
		t.Errorf("summary differs between the whole seed-7 run and the merged shards:\n%s\n---\n%s", a, b)
	}
	if a, b := samplesNoTiming(t, whole, "ifeval"), samplesNoTiming(t, merged, "ifeval"); a != b {
		t.Error("samples differ between the whole seed-7 run and the merged shards")
	}
	m, err := results.ReadManifest(merged)
	if err != nil || m.Config.Tasks[0].Version != "2+langdetect-seed.7" || m.Config.Tasks[0].Options[ifeval.OptionLangdetectSeed] != "7" {
		t.Errorf("merged manifest tasks %+v (%v): want version 2+langdetect-seed.7 with option langdetect_seed 7", m.Config.Tasks, err)
	}
}
