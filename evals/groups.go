package evals

import "sort"

// Tally is the count of a group's samples and the sum of each metric over
// them.
type Tally struct {
	N   int
	Sum map[string]float64
}

// Add counts one sample's values.
func (t *Tally) Add(values map[string]float64) {
	if t.Sum == nil {
		t.Sum = map[string]float64{}
	}
	t.N++
	for k, v := range values {
		t.Sum[k] += v
	}
}

// Merge adds another tally's counts and sums (a category over its
// subjects).
func (t *Tally) Merge(o *Tally) {
	if t.Sum == nil {
		t.Sum = map[string]float64{}
	}
	t.N += o.N
	for k, v := range o.Sum {
		t.Sum[k] += v
	}
}

// Mean is metric's mean over the group (0 for an empty group).
func (t *Tally) Mean(metric string) float64 {
	if t.N == 0 {
		return 0
	}
	return t.Sum[metric] / float64(t.N)
}

// Entry is the group's Aggregates.Breakdown entry: the mean of every
// metric, and the count under "n".
func (t *Tally) Entry() map[string]float64 {
	e := map[string]float64{"n": float64(t.N)}
	for k := range t.Sum {
		e[k] = t.Mean(k)
	}
	return e
}

// Groups tallies samples by group (subject, sub-task, difficulty level,
// instruction) for a task's Aggregate. The zero value is empty and ready.
type Groups struct {
	m map[string]*Tally
}

// Add counts one sample's values in group.
func (g *Groups) Add(group string, values map[string]float64) {
	g.Get(group).Add(values)
}

// Get returns group's tally, creating it empty.
func (g *Groups) Get(group string) *Tally {
	if g.m == nil {
		g.m = map[string]*Tally{}
	}
	t := g.m[group]
	if t == nil {
		t = &Tally{}
		g.m[group] = t
	}
	return t
}

// Names lists the groups, sorted.
func (g *Groups) Names() []string {
	out := make([]string, 0, len(g.m))
	for k := range g.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Len is the number of groups.
func (g *Groups) Len() int { return len(g.m) }

// Macro is the unweighted mean of metric's group means over names (0 when
// there are none): the macro average over subjects or sub-tasks.
func (g *Groups) Macro(names []string, metric string) float64 {
	if len(names) == 0 {
		return 0
	}
	var sum float64
	for _, n := range names {
		sum += g.Get(n).Mean(metric)
	}
	return sum / float64(len(names))
}

// Breakdown adds every group's entry (Tally.Entry) to b, creating b when
// nil, and returns it.
func (g *Groups) Breakdown(b map[string]map[string]float64) map[string]map[string]float64 {
	if b == nil {
		b = map[string]map[string]float64{}
	}
	for k, t := range g.m {
		b[k] = t.Entry()
	}
	return b
}
