package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestGroupAggregateLlamacpp runs docs/tasks.md's group example (the
// documentation test checks what it prints) and checks the aggregates: the
// group's acc is the mean of its three tasks' weighted by their samples,
// acc_norm the plain mean.
func TestGroupAggregateLlamacpp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs llama.cpp")
	}
	needLlama(t)
	root, err := sharedtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	out := filepath.Join(t.TempDir(), "mc-group")
	cmd := []string{"run", "--runtime", "llamacpp", "--model", model, "--threads", "1",
		"--tasks", filepath.Join(root, "evals/taskfile/testdata/lmeval/pocketeval_mc_group.yaml"),
		"--data-dir", filepath.Join(root, "evals/taskfile/testdata/lmeval/data"), "--out", out}
	e2eLlamaSlots <- struct{}{}
	code, stdout, stderr := runReal(t, cmd...)
	<-e2eLlamaSlots
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	s, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	checkDocGroup(t, strings.Join(cmd, " "), s)
}

// TestTaskFileShardsMerge runs a task file in two shards and merges them:
// merge finds the task file through --tasks, and the merged summary equals
// an unsharded run's.
func TestTaskFileShardsMerge(t *testing.T) {
	t.Parallel()
	root, err := sharedtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	task := filepath.Join(root, "examples", "tasks", "keywords.yaml")
	dir := t.TempDir()
	for _, shard := range []string{"0/2", "1/2"} {
		out := filepath.Join(dir, "shard"+shard[:1])
		if code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", task, "--shard", shard, "--out", out); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", shard, code, errOut)
		}
	}
	whole := filepath.Join(dir, "whole")
	if code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", task, "--out", whole); code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	shards := []string{filepath.Join(dir, "shard0"), filepath.Join(dir, "shard1")}
	if code, _, errOut := run(t, append([]string{"merge", "--out", filepath.Join(dir, "bad")}, shards...)...); code == 0 || !strings.Contains(errOut, "app_keywords") {
		t.Errorf("merge without --tasks: exit %d, stderr %q; want a failure naming the task", code, errOut)
	}
	merged := filepath.Join(dir, "merged")
	if code, _, errOut := run(t, append([]string{"merge", "--tasks", task, "--out", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	a, err := results.ReadSummary(whole)
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.ReadSummary(merged)
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := a.Tasks["app_keywords"].Metrics, b.Tasks["app_keywords"].Metrics
	if len(ma) == 0 || len(ma) != len(mb) {
		t.Fatalf("metrics %v vs %v", ma, mb)
	}
	for k, v := range ma {
		if mb[k].Mean != v.Mean || mb[k].N != v.N {
			t.Errorf("%s: merged %+v, unsharded %+v", k, mb[k], v)
		}
	}
}

// checkDocGroup checks the documented group run: the group's acc is the
// mean of its three tasks' weighted by their samples, acc_norm the plain
// mean.
func checkDocGroup(t *testing.T, cmd string, s *results.Summary) {
	t.Helper()
	g := s.Groups["pocketeval_mc"]
	if g == nil || len(g.Tasks) != 3 || len(s.Order) != 3 {
		t.Fatalf("%s: group %+v, tasks %v", cmd, g, s.Order)
	}
	var acc, norm float64
	n := 0
	for _, name := range g.Tasks {
		ts := s.Tasks[name]
		acc += ts.Metrics["acc"].Mean * float64(ts.Scored)
		norm += ts.Metrics["acc_norm"].Mean
		n += ts.Scored
	}
	if got, want := g.Metrics["acc"].Mean, acc/float64(n); math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: group acc %v, want %v", cmd, got, want)
	}
	if got, want := g.Metrics["acc_norm"].Mean, norm/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: group acc_norm %v, want %v", cmd, got, want)
	}
}
