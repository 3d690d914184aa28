package bfclmt

import (
	"math"
	"slices"
	"testing"
)

// TestComputeOverall pins BFCL v4's leaderboard arithmetic
// (generate_leaderboard_csv at gorilla 6ea57973).
func TestComputeOverall(t *testing.T) {
	all := map[string]CategoryScore{}
	for c, n := range categoryCounts {
		all[c] = CategoryScore{Accuracy: 1, Count: n}
	}
	if o := ComputeOverall(all); math.Abs(o.Overall-1) > 1e-12 || len(o.Missing) != 0 {
		t.Errorf("all perfect: %+v", o)
	}
	o := ComputeOverall(map[string]CategoryScore{
		"multi_turn_base": {0.5, 200}, "multi_turn_miss_func": {0.25, 200},
		"multi_turn_miss_param": {0.25, 200}, "multi_turn_long_context": {0, 200},
		"live_simple": {1, 258}, "live_multiple": {0, 1053},
		"simple_python": {0.9, 400}, "irrelevance": {0.6, 240},
	})
	// multi-turn: unweighted mean 0.25; live: weighted by counts, the
	// missing live_parallel (16) and live_parallel_multiple (24) count 0;
	// non-live: simple = (0.9+0+0)/3, then /4 with three missing groups.
	live := 258.0 / (258 + 1053 + 16 + 24)
	nonLive := (0.9 / 3) / 4
	irrelevance := 0.6 / 2
	want := 0.1*nonLive + 0.1*live + 0.1*irrelevance + 0.3*0.25
	if math.Abs(o.Overall-want) > 1e-12 || math.Abs(o.Groups["live"]-live) > 1e-12 || math.Abs(o.Groups["multi_turn"]-0.25) > 1e-12 {
		t.Errorf("overall %+v, want %v (live %v)", o, want, live)
	}
	if !slices.Contains(o.Missing, "simple_java") || !slices.Contains(o.Missing, "memory_kv") || slices.Contains(o.Missing, "multi_turn_base") {
		t.Errorf("missing %v", o.Missing)
	}
}
