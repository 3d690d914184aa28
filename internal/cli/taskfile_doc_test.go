package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestTaskFileDocCommands runs every `pocketeval` command of docs/tasks.md
// through llama.cpp with the tiny story model, as the documentation types
// it from the repository root: relative paths are resolved against the
// root, and each --out directory goes to a temporary directory. The run of
// the whole examples/tasks directory must score every example task.
func TestTaskFileDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documentation's llama.cpp commands")
	}
	needLlama(t)
	sharedtest.Models(t)
	root, err := sharedtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	cmds := docCommands(t, filepath.Join(root, "docs", "tasks.md"))
	if len(cmds) < 4 {
		t.Fatalf("docs/tasks.md: %d pocketeval commands, want the documented runs", len(cmds))
	}
	tmp := t.TempDir()
	for _, cmd := range cmds {
		args, out := docArgs(t, root, tmp, cmd)
		e2eLlamaSlots <- struct{}{}
		code, stdout, stderr := runReal(t, append(args, "--threads", "1")...)
		<-e2eLlamaSlots
		if code != 0 {
			t.Fatalf("%s\nexit %d\nstdout:\n%s\nstderr:\n%s", cmd, code, stdout, stderr)
		}
		s, err := results.ReadSummary(out)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if !s.Complete {
			t.Errorf("%s: summary incomplete", cmd)
		}
		if strings.Contains(cmd, "pocketeval_mc_group.yaml") {
			checkDocGroup(t, cmd, s)
		}
		if strings.Contains(cmd, "--tasks examples/tasks ") {
			want := map[string]string{
				"app_intent": "label_accuracy", "app_extraction": "json_field_f1", "app_rewrite": "chrf",
				"app_ranking": "acc", "app_keywords": "prefix_match",
			}
			for task, primary := range want {
				ts := s.Tasks[task]
				if ts == nil {
					t.Errorf("%s: no task %s in the summary", cmd, task)
					continue
				}
				if ts.PrimaryMetric != primary || ts.Scored != 12 || ts.Errors != 0 {
					t.Errorf("%s: %s: primary %s, scored %d, errors %d; want %s over 12", cmd, task, ts.PrimaryMetric, ts.Scored, ts.Errors, primary)
				}
			}
			for _, m := range []string{"macro_f1", "json_field_f1_micro", "chrf_corpus", "ece", "mrr", "brier_score"} {
				found := false
				for _, ts := range s.Tasks {
					if _, ok := ts.Metrics[m]; ok {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no task reports %s", cmd, m)
				}
			}
		}
	}
}

// docCommands returns the `pocketeval ...` commands of the ```sh blocks of
// a Markdown file, with backslash continuations joined.
func docCommands(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	var cur strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		}
		if !in {
			continue
		}
		l := strings.TrimSpace(line)
		if cur.Len() > 0 {
			cur.WriteString(" ")
		}
		cur.WriteString(strings.TrimSuffix(l, "\\"))
		if strings.HasSuffix(l, "\\") {
			continue
		}
		if c := strings.Join(strings.Fields(cur.String()), " "); strings.HasPrefix(c, "pocketeval ") {
			cmds = append(cmds, c+" ")
		}
		cur.Reset()
	}
	return cmds
}

// docArgs turns a documented command into CLI arguments: paths relative to
// the repository root become absolute, --out goes under tmp.
func docArgs(t *testing.T, root, tmp, cmd string) ([]string, string) {
	t.Helper()
	fields := strings.Fields(cmd)[1:]
	var out string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if f == "--out" && i+1 < len(fields) {
			out = filepath.Join(tmp, fields[i+1])
			fields[i+1] = out
			i++
			continue
		}
		if strings.HasPrefix(f, "-") {
			continue
		}
		if p := filepath.Join(root, f); strings.Contains(f, "/") {
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("%s: %s does not exist relative to the repository root", cmd, f)
			}
			fields[i] = p
		}
	}
	if out == "" {
		t.Fatalf("%s: no --out", cmd)
	}
	return fields, out
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
