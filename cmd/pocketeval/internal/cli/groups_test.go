package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
)

// TestRunGroupFile: --tasks takes an lm-eval group file of built-in tasks
// and a task file; its tasks run, the table shows the group's aggregate
// under the tasks, and merged shards (merge --tasks naming the group
// file) aggregate the group as the whole run does.
func TestRunGroupFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	group := filepath.Join(dir, "ab.yaml")
	os.WriteFile(group, []byte("group: ab\ngroup_alias: alpha and beta\ntask: [alpha, beta, qa]\naggregate_metric_list:\n  - metric: acc\n    weight_by_size: false\n  - metric: exact_match\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "qa.yaml"), []byte("task: qa\ndataset_path: ./qa.jsonl\ntest_split: test\ndoc_to_text: \"{{q}}\"\ndoc_to_target: \"{{a}}\"\nmetric_list:\n  - metric: exact_match\n"), 0o644)
	var qa strings.Builder
	for i := range 9 {
		fmt.Fprintf(&qa, "{\"q\": \"question %d\", \"a\": \"%d\"}\n", i, i%3)
	}
	os.WriteFile(filepath.Join(dir, "qa.jsonl"), []byte(qa.String()), 0o644)
	whole := filepath.Join(dir, "whole")
	code, out, errOut := run(t, "run", "--runtime", "fake", "--tasks", group, "--out", whole)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "GROUP") || !strings.Contains(out, "ab (alpha and beta)  acc") {
		t.Errorf("table without the group:\n%s", out)
	}
	w, err := results.ReadSummary(whole)
	if err != nil {
		t.Fatal(err)
	}
	a, b := w.Tasks["alpha"].Metrics["acc"].Mean, w.Tasks["beta"].Metrics["acc"].Mean
	if g := w.Groups["ab"]; g == nil || g.Metrics["acc"].Mean != (a+b)/2 || g.Metrics["exact_match"].N != 9 || !reflect.DeepEqual(w.Order, []string{"alpha", "beta", "qa"}) {
		t.Fatalf("summary groups %+v, order %v; want ab acc = (%v+%v)/2", w.Groups, w.Order, a, b)
	}
	// run --json reports the group as the table does, in points.
	code, out, errOut = run(t, "run", "--runtime", "fake", "--tasks", group, "--out", whole, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var doc struct {
		Groups []struct {
			Group, Alias, Metric string
			Score                *float64
			Tasks                []string
			Samples              int
			Metrics              []struct {
				Name  string
				Value float64
				N     int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(doc.Groups) != 1 {
		t.Fatalf("--json groups %+v, want ab", doc.Groups)
	}
	g := doc.Groups[0]
	ab := w.Groups["ab"]
	if g.Group != "ab" || g.Alias != "alpha and beta" || g.Metric != ab.Primary || g.Score == nil || math.Abs(*g.Score-100*ab.Metrics[ab.Primary].Mean) > 1e-9 ||
		!reflect.DeepEqual(g.Tasks, ab.Tasks) || g.Samples != ab.Samples || len(g.Metrics) != len(ab.Metrics) || g.Metrics[0].Name != ab.Primary {
		t.Errorf("--json group %+v, summary's %+v", g, ab)
	}
	for _, m := range g.Metrics {
		if want := ab.Metrics[m.Name]; math.Abs(m.Value-100*want.Mean) > 1e-9 || m.N != want.N {
			t.Errorf("--json group metric %s = %v (n %d), summary's %v (n %d)", m.Name, m.Value, m.N, 100*want.Mean, want.N)
		}
	}
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(dir, "shard"+s[:1])
		if code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", group, "--shard", s, "--out", d); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errOut)
		}
		shards = append(shards, d)
	}
	// The task file's task is found through the group file.
	merged := filepath.Join(dir, "merged")
	code, out, errOut = run(t, append([]string{"merge", "--tasks", group, "--out", merged}, shards...)...)
	if code != 0 || !strings.Contains(out, "ab (alpha and beta)") {
		t.Fatalf("merge: exit %d: %s\n%s", code, errOut, out)
	}
	m, err := results.ReadSummary(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Groups, w.Groups) || !reflect.DeepEqual(m.GroupOrder, w.GroupOrder) {
		t.Errorf("merged groups %+v, whole run's %+v", m.Groups["ab"], w.Groups["ab"])
	}
}
