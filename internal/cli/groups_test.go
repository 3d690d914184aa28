package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
)

// TestRunGroupFile: --tasks takes an lm-eval group file; its tasks run,
// the table shows the group's aggregate under the tasks, and merged
// shards aggregate the group as the whole run does.
func TestRunGroupFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	group := filepath.Join(dir, "ab.yaml")
	os.WriteFile(group, []byte("group: ab\ngroup_alias: alpha and beta\ntask: [alpha, beta]\naggregate_metric_list:\n  - metric: acc\n    weight_by_size: false\n"), 0o644)
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
	if g := w.Groups["ab"]; g == nil || g.Metrics["acc"].Mean != (a+b)/2 || !reflect.DeepEqual(w.Order, []string{"alpha", "beta"}) {
		t.Fatalf("summary groups %+v, order %v; want ab acc = (%v+%v)/2", w.Groups, w.Order, a, b)
	}
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		d := filepath.Join(dir, "shard"+s[:1])
		if code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", group, "--shard", s, "--out", d); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errOut)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	code, out, errOut = run(t, append([]string{"merge", "--out", merged}, shards...)...)
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
