package evals

import (
	"reflect"
	"testing"
)

func TestGroups(t *testing.T) {
	t.Parallel()
	var g Groups
	g.Add("b", map[string]float64{"acc": 1, "f1": 0.5})
	g.Add("b", map[string]float64{"acc": 0, "f1": 0.5})
	g.Add("a", map[string]float64{"acc": 1})
	if got := g.Names(); !reflect.DeepEqual(got, []string{"a", "b"}) || g.Len() != 2 {
		t.Errorf("Names = %v", got)
	}
	want := map[string]map[string]float64{
		"a": {"n": 1, "acc": 1},
		"b": {"n": 2, "acc": 0.5, "f1": 0.5},
	}
	if got := g.Breakdown(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Breakdown = %v, want %v", got, want)
	}
	// Macro: the unweighted mean of group means; micro weighs samples.
	if m := g.Macro(g.Names(), "acc"); m != 0.75 {
		t.Errorf("Macro = %v, want 0.75", m)
	}
	var all Tally
	all.Merge(g.Get("a"))
	all.Merge(g.Get("b"))
	if all.N != 3 || all.Mean("acc") != 2.0/3 {
		t.Errorf("merged tally %+v", all)
	}
	if (&Tally{}).Mean("acc") != 0 || g.Macro(nil, "acc") != 0 {
		t.Error("empty tallies must give 0")
	}
}
