package runner

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// checkGroups refuses groups that cannot be aggregated: a name given
// twice or shared with a task, a member that is neither a task of the run
// nor one of the groups, a group that contains itself.
func checkGroups(groups []results.Group, tasks []string) error {
	isTask := map[string]bool{}
	for _, t := range tasks {
		isTask[t] = true
	}
	byName := map[string]*results.Group{}
	for i := range groups {
		g := &groups[i]
		switch {
		case g.Name == "":
			return errors.New("group: a group has no name")
		case isTask[g.Name]:
			return fmt.Errorf("group %s: a task has the same name", g.Name)
		case byName[g.Name] != nil:
			return fmt.Errorf("group %s: defined twice", g.Name)
		}
		byName[g.Name] = g
	}
	for _, g := range groups {
		for _, m := range g.Members {
			if !isTask[m] && byName[m] == nil {
				return fmt.Errorf("group %s: member %q is neither a task of the run nor a group", g.Name, m)
			}
		}
	}
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		if slices.Contains(path, name) {
			return fmt.Errorf("group %s contains itself (%s)", name, strings.Join(append(path, name), " → "))
		}
		for _, m := range byName[name].Members {
			if byName[m] != nil {
				if err := visit(m, append(path, name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, g := range groups {
		if err := visit(g.Name, nil); err != nil {
			return err
		}
	}
	return nil
}

// SummarizeGroups aggregates the task summaries into the groups' as
// lm-evaluation-harness aggregates a group (lm_eval/api/group.py,
// Group.aggregate): each aggregated metric is the mean of the metric over
// every task under the group (nested groups expanded, not averaged
// first), weighted by the tasks' scored samples when weight_by_size is
// true and unweighted otherwise; its standard error is the pooled one,
// sqrt(Σ(nᵢ−1)·nᵢ·seᵢ² / (Σnᵢ − k) / Σnᵢ) over the k tasks (lm-eval's
// pooled_sample_stderr, with the true sizes even when the mean is
// unweighted), and there is none when a task has none (one sample, or a
// task-level number without an interval). Filters not listed are those
// the tasks report the metric under, sorted, "none" being the metric
// without a filter. Tasks without the metric are left out, with a
// warning. It returns the summaries and their order: each root group
// (a member of no other) in the order given, followed by its subgroups.
// The groups must have passed checkGroups.
func SummarizeGroups(groups []results.Group, tasks map[string]*results.TaskSummary) (map[string]*results.GroupSummary, []string) {
	byName := map[string]*results.Group{}
	member := map[string]bool{}
	for i := range groups {
		byName[groups[i].Name] = &groups[i]
		for _, m := range groups[i].Members {
			member[m] = true
		}
	}
	var leaves func(g *results.Group) []string
	leaves = func(g *results.Group) []string {
		var out []string
		for _, m := range g.Members {
			if sub := byName[m]; sub != nil {
				out = append(out, leaves(sub)...)
			} else {
				out = append(out, m)
			}
		}
		return out
	}
	sums := map[string]*results.GroupSummary{}
	var order []string
	var visit func(g *results.Group)
	visit = func(g *results.Group) {
		if sums[g.Name] != nil {
			return
		}
		sums[g.Name] = summarizeGroup(g, leaves(g), tasks)
		order = append(order, g.Name)
		for _, m := range g.Members {
			if sub := byName[m]; sub != nil {
				visit(sub)
			}
		}
	}
	for i := range groups {
		if !member[groups[i].Name] {
			visit(&groups[i])
		}
	}
	return sums, order
}

// summarizeGroup aggregates one group over its leaf tasks.
func summarizeGroup(g *results.Group, leaves []string, tasks map[string]*results.TaskSummary) *results.GroupSummary {
	gs := &results.GroupSummary{
		Alias: g.Alias, Version: g.Version, Members: g.Members, Tasks: leaves,
		Metrics: map[string]stats.Summary{},
	}
	for _, t := range leaves {
		if ts := tasks[t]; ts != nil {
			gs.Samples += ts.Scored
		}
	}
	var keys []string // aggregated, in order
	for _, am := range g.Aggregate {
		filters := am.Filters
		if filters == nil {
			filters = discoverFilters(am.Metric, leaves, tasks)
		}
		for _, f := range filters {
			key := metricKey(am.Metric, f)
			var values, stderrs []float64
			var sizes []int
			var without []string
			noStderr := false
			for _, t := range leaves {
				var m stats.Summary
				ok := false
				if ts := tasks[t]; ts != nil {
					m, ok = ts.Metrics[key]
				}
				if !ok {
					without = append(without, t)
					continue
				}
				values, sizes = append(values, m.Mean), append(sizes, tasks[t].Scored)
				if se, ok := taskStderr(m); ok {
					stderrs = append(stderrs, se)
				} else {
					noStderr = true
				}
			}
			if len(values) == 0 {
				gs.Warnings = append(gs.Warnings, fmt.Sprintf("no task of the group reports %s", key))
				continue
			}
			if len(without) > 0 {
				gs.Warnings = append(gs.Warnings, fmt.Sprintf("%s is missing in %d of %d tasks (%s); the aggregate is over the others", key, len(without), len(leaves), strings.Join(without, ", ")))
			}
			keys = append(keys, key)
			gs.Metrics[key] = groupMetric(values, sizes, stderrs, noStderr, am.WeightBySize)
			how := "weighted by each task's scored samples"
			if !am.WeightBySize {
				how = "unweighted (each task counts once)"
			}
			note := fmt.Sprintf("%s: mean over %d tasks, %s", key, len(values), how)
			if noStderr {
				note += "; no pooled standard error (a task has none)"
			}
			gs.Notes = append(gs.Notes, note)
		}
	}
	// The headline is the first aggregated metric, unfiltered when the
	// tasks report it so.
	if len(keys) > 0 {
		gs.Primary = keys[0]
		metric, _, _ := strings.Cut(keys[0], ",")
		if _, ok := gs.Metrics[metric]; ok {
			gs.Primary = metric
		}
	}
	return gs
}

// groupMetric is lm-eval's aggregate_subtask_metrics and
// pooled_sample_stderr for one metric, with a 95% interval from the
// pooled standard error.
func groupMetric(values []float64, sizes []int, stderrs []float64, noStderr, weightBySize bool) stats.Summary {
	var num float64
	den, n := 0, 0
	for i, v := range values {
		w := 1
		if weightBySize {
			w = sizes[i]
		}
		num += float64(v * float64(w))
		den += w
		n += sizes[i]
	}
	mean := num / float64(den)
	s := stats.Summary{Mean: mean, Lo: mean, Hi: mean, N: n}
	if noStderr || n-len(sizes) <= 0 {
		return s
	}
	var pooled float64
	for i, se := range stderrs {
		pooled += float64(float64(sizes[i]-1) * (se * se) * float64(sizes[i]))
	}
	s.Stderr = math.Sqrt(pooled / float64(n-len(sizes)) / float64(n))
	s.Lo, s.Hi = math.Max(0, mean-float64(stats.Z95*s.Stderr)), math.Min(1, mean+float64(stats.Z95*s.Stderr))
	return s
}

// taskStderr is a task metric's standard error as lm-eval would have one:
// a mean over more than one sample. A task-level number without an
// interval (stderr 0 and a zero-width interval) has none. (A per-sample
// metric whose values are all the same non-binary number looks the same
// and is treated alike; lm-eval would pool a standard error of 0.)
func taskStderr(m stats.Summary) (float64, bool) {
	if m.N < 2 || m.Stderr == 0 && m.Lo == m.Hi {
		return 0, false
	}
	return m.Stderr, true
}

// discoverFilters lists, sorted, the filter sets under which the tasks
// report metric: "none" for the metric itself, f for "metric,f".
func discoverFilters(metric string, leaves []string, tasks map[string]*results.TaskSummary) []string {
	seen := map[string]bool{}
	for _, t := range leaves {
		ts := tasks[t]
		if ts == nil {
			continue
		}
		for k := range ts.Metrics {
			switch {
			case k == metric:
				seen["none"] = true
			case strings.HasPrefix(k, metric+","):
				seen[strings.TrimPrefix(k, metric+",")] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// metricKey is how a task names metric under filter: the bare name for
// "none" (no filter), "metric,filter" otherwise.
func metricKey(metric, filter string) string {
	if filter == "none" {
		return metric
	}
	return metric + "," + filter
}
