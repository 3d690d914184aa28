package runner

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
)

// SelectionError is a --samples selection that does not fit the run: a
// task it does not name, a task or id that does not exist. It is found
// before anything runs.
type SelectionError struct{ Msg string }

func (e *SelectionError) Error() string { return "--samples: " + e.Msg }

func selectionErrorf(format string, args ...any) error {
	return &SelectionError{Msg: fmt.Sprintf(format, args...)}
}

// validateSampleIDs checks a --samples selection against the run's tasks:
// every task is named, no other task is, and --limit is not also given.
func validateSampleIDs(o *Options) error {
	if o.SampleIDs == nil {
		return nil
	}
	if o.Limit > 0 {
		return selectionErrorf("--limit cannot be combined with it: the selection names the samples")
	}
	names := map[string]bool{}
	for _, t := range o.Tasks {
		name := t.Info().Name
		names[name] = true
		if len(o.SampleIDs[name]) == 0 {
			return selectionErrorf("no sample of task %s is selected (name one as %s:ID, or leave the task out of the run)", name, name)
		}
	}
	for _, task := range slices.Sorted(maps.Keys(o.SampleIDs)) {
		if !names[task] {
			return selectionErrorf("task %s is not in the run", task)
		}
	}
	return nil
}

// selectIDs keeps the selected dataset indexes whose sample id is one of
// ids, in dataset order. An id that is not in the dataset is an error
// naming it; an id outside this shard is simply not run here.
func selectIDs(task string, samples []evals.Sample, selected []int, ids []string) ([]int, error) {
	want, keep := map[string]bool{}, map[string]bool{}
	for _, id := range ids {
		want[id], keep[id] = true, true
	}
	for _, s := range samples {
		delete(want, s.ID)
	}
	if len(want) > 0 {
		missing := slices.Sorted(maps.Keys(want))
		return nil, selectionErrorf("task %s has no sample %s (its ids look like %q)", task, strings.Join(quoteAll(missing), ", "), samples[0].ID)
	}
	var out []int
	for _, i := range selected {
		if keep[samples[i].ID] {
			out = append(out, i)
		}
	}
	return out, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
