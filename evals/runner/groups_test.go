package runner

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

func TestCheckGroups(t *testing.T) {
	t.Parallel()
	tasks := []string{"a", "b"}
	for _, c := range []struct {
		groups []results.Group
		want   string
	}{
		{[]results.Group{{Name: "g", Members: []string{"a"}}, {Name: "g", Members: []string{"b"}}}, "defined twice"},
		{[]results.Group{{Name: "a", Members: []string{"b"}}}, "a task has the same name"},
		{[]results.Group{{Name: "g", Members: []string{"a", "c"}}}, `member "c"`},
		{[]results.Group{{Name: "g", Members: []string{"h"}}, {Name: "h", Members: []string{"a", "g"}}}, "contains itself (g → h → g)"},
		{[]results.Group{{Members: []string{"a"}}}, "no name"},
	} {
		if err := checkGroups(c.groups, tasks); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("checkGroups(%+v) = %v, want %q", c.groups, err, c.want)
		}
	}
	ok := []results.Group{{Name: "g", Members: []string{"a", "h"}}, {Name: "h", Members: []string{"b"}}}
	if err := checkGroups(ok, tasks); err != nil {
		t.Error(err)
	}
}

// TestSummarizeGroupsEdges covers what the lm-eval comparison
// (evals/taskfile TestGroupsMatchLMEval) does not: a task without the
// metric, a task whose metric has no standard error, a group without
// aggregate_metric_list, and the order of groups.
func TestSummarizeGroupsEdges(t *testing.T) {
	t.Parallel()
	tasks := map[string]*results.TaskSummary{
		"x": {Scored: 10, Metrics: map[string]stats.Summary{"acc": {Mean: 0.5, Stderr: 0.1, Lo: 0.3, Hi: 0.7, N: 10}, "acc,f": {Mean: 1, Stderr: 0, Lo: 0.7, Hi: 1, N: 10}}},
		"y": {Scored: 1, Metrics: map[string]stats.Summary{"acc": {Mean: 1, Lo: 0.2, Hi: 1, N: 1}}},
		"z": {Scored: 4, Metrics: map[string]stats.Summary{"f1": {Mean: 0.25, Lo: 0.25, Hi: 0.25, N: 4}}},
	}
	groups := []results.Group{
		{Name: "plain", Members: []string{"x"}},
		{Name: "top", Members: []string{"inner", "z"}, Aggregate: []results.GroupMetric{{Metric: "acc", WeightBySize: true}, {Metric: "f1"}}},
		{Name: "inner", Members: []string{"x", "y"}, Aggregate: []results.GroupMetric{{Metric: "acc", Filters: []string{"f"}}}},
	}
	sums, order := SummarizeGroups(groups, tasks)
	if !reflect.DeepEqual(order, []string{"plain", "top", "inner"}) {
		t.Errorf("order %v", order)
	}
	if p := sums["plain"]; len(p.Metrics) != 0 || p.Primary != "" || p.Samples != 10 || !reflect.DeepEqual(p.Tasks, []string{"x"}) {
		t.Errorf("a group without aggregates: %+v", p)
	}
	top := sums["top"]
	if !reflect.DeepEqual(top.Tasks, []string{"x", "y", "z"}) || top.Samples != 15 || top.Primary != "acc" {
		t.Errorf("top: %+v", top)
	}
	// acc,f is reported by x alone; "acc" (filter none) by x and y.
	acc := top.Metrics["acc"]
	if want := (0.5*10 + 1*1) / 11.0; math.Abs(acc.Mean-want) > 1e-15 || acc.N != 11 || acc.Stderr != 0 || acc.Lo != acc.Hi {
		t.Errorf("acc %+v, want %v over 11 samples without a standard error (y has one sample)", acc, want)
	}
	if _, ok := top.Metrics["acc,f"]; !ok {
		t.Error("acc,f not discovered")
	}
	// f1 has no interval in z (a task-level number): no standard error.
	if f1 := top.Metrics["f1"]; f1.Mean != 0.25 || f1.Stderr != 0 || f1.N != 4 {
		t.Errorf("f1 %+v", f1)
	}
	if w := strings.Join(top.Warnings, "\n"); !strings.Contains(w, "acc is missing in 1 of 3 tasks (z)") || !strings.Contains(w, "f1 is missing in 2 of 3 tasks (x, y)") {
		t.Errorf("warnings %q", top.Warnings)
	}
	// Filter f only; x's acc,f has stderr 0 with an interval (all ones),
	// pooled as 0; unweighted over x alone.
	in := sums["inner"]
	if m := in.Metrics["acc,f"]; len(in.Metrics) != 1 || m.Mean != 1 || m.Stderr != 0 || m.N != 10 {
		t.Errorf("inner %+v", in.Metrics)
	}
}

// TestGroupsThroughShardsAndMerge: the groups are recorded in the
// manifest, so merged shards aggregate them as the whole run did, and a
// run with other groups is not resumed as the same run.
func TestGroupsThroughShardsAndMerge(t *testing.T) {
	t.Parallel()
	groups := []results.Group{
		{Name: "both", Members: []string{"alpha", "half"}, Aggregate: []results.GroupMetric{{Metric: "acc", WeightBySize: true}}},
		{Name: "half", Members: []string{"beta"}, Aggregate: []results.GroupMetric{{Metric: "acc"}}},
	}
	opts := func(dir string) Options {
		o := baseOptions(dir, &fakeRuntime{})
		o.Groups = groups
		return o
	}
	whole := t.TempDir()
	res, err := Run(context.Background(), opts(whole))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	a, b := s.Tasks["alpha"], s.Tasks["beta"]
	want := (a.Metrics["acc"].Mean*float64(a.Scored) + b.Metrics["acc"].Mean*float64(b.Scored)) / float64(a.Scored+b.Scored)
	if got := s.Groups["both"].Metrics["acc"].Mean; math.Abs(got-want) > 1e-15 || !reflect.DeepEqual(s.GroupOrder, []string{"both", "half"}) {
		t.Errorf("both acc %v, want %v; order %v", got, want, s.GroupOrder)
	}
	shards := runShards(t, 3, opts)
	out := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookupFake}); err != nil {
		t.Fatal(err)
	}
	x, y := stripTimings(t, whole), stripTimings(t, out)
	if x != y || !strings.Contains(y, `"both"`) {
		t.Errorf("merged summary differs from the whole run's:\n%s\n---\n%s", x, y)
	}
	o := opts(whole)
	o.Groups = []results.Group{{Name: "half", Members: []string{"alpha"}}}
	var mm *ConfigMismatchError
	if _, err := Run(context.Background(), o); !errors.As(err, &mm) || !strings.Contains(err.Error(), "groups") {
		t.Errorf("resume with other groups: %v, want a configuration mismatch naming the groups", err)
	}
}
