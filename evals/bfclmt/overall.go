package bfclmt

import (
	"sort"
)

// Overall is BFCL's overall accuracy as its leaderboard computes it
// (eval_checker/eval_runner_helper.py generate_leaderboard_csv at gorilla
// 6ea57973, BFCL v4): 10% non-live AST, 10% live AST, 10% irrelevance,
// 30% multi-turn, 40% agentic, where
//
//   - non-live is the unweighted mean of simple (itself the unweighted
//     mean of simple_python, simple_java and simple_javascript), multiple,
//     parallel and parallel_multiple;
//   - live is the mean of live_simple, live_multiple, live_parallel and
//     live_parallel_multiple weighted by their entry counts;
//   - irrelevance is the unweighted mean of irrelevance and
//     live_irrelevance (live_relevance is shown but not weighed);
//   - multi-turn is the unweighted mean of multi_turn_base, _miss_func,
//     _miss_param and _long_context;
//   - agentic is the unweighted mean of web search (mean of
//     web_search_base and web_search_no_snippet) and memory (mean of
//     memory_kv, memory_vector and memory_rec_sum).
//
// A category that was not evaluated counts as 0, as on the leaderboard
// (which then shows "N/A" for the groups that lack it); Missing lists
// them, so the overall is BFCL's number only when Missing is empty.
type Overall struct {
	Overall float64 `json:"overall"`
	// Groups are the five weighed groups: non_live, live, irrelevance,
	// multi_turn, agentic.
	Groups map[string]float64 `json:"groups"`
	// Weights are the groups' weights (percent).
	Weights map[string]float64 `json:"weights"`
	// Missing are the categories the overall counted as 0.
	Missing []string `json:"missing,omitempty"`
}

// CategoryScore is one category's accuracy and entry count.
type CategoryScore struct {
	Accuracy float64
	Count    int
}

// categoryCounts are the v4 categories' entry counts (for the live
// group's weights when a category is missing, as BFCL counts the
// dataset's entries then).
var categoryCounts = map[string]int{
	"simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200, "parallel": 200,
	"parallel_multiple": 200, "irrelevance": 240, "live_simple": 258, "live_multiple": 1053, "live_parallel": 16,
	"live_parallel_multiple": 24, "live_irrelevance": 884, "live_relevance": 16, "multi_turn_base": 200,
	"multi_turn_miss_func": 200, "multi_turn_miss_param": 200, "multi_turn_long_context": 200,
	"web_search_base": 100, "web_search_no_snippet": 100, "memory_kv": 155, "memory_vector": 155, "memory_rec_sum": 155,
}

// OverallWeights are BFCL v4's group weights (percent).
var OverallWeights = map[string]float64{"non_live": 10, "live": 10, "irrelevance": 10, "multi_turn": 30, "agentic": 40}

// ComputeOverall computes BFCL's overall accuracy from category scores
// (BFCL's category names: simple_python, live_simple, multi_turn_base…).
func ComputeOverall(scores map[string]CategoryScore) Overall {
	missing := map[string]bool{}
	get := func(c string) CategoryScore {
		if s, ok := scores[c]; ok {
			return s
		}
		missing[c] = true
		return CategoryScore{Count: categoryCounts[c]}
	}
	mean := func(xs ...float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	simple := mean(get("simple_python").Accuracy, get("simple_java").Accuracy, get("simple_javascript").Accuracy)
	nonLive := mean(simple, get("multiple").Accuracy, get("parallel").Accuracy, get("parallel_multiple").Accuracy)
	liveSum, liveN := 0.0, 0
	for _, c := range []string{"live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"} {
		s := get(c)
		liveSum += float64(s.Accuracy * float64(s.Count)) // rounded before the add, as Python does (no fused multiply-add on arm64)
		liveN += s.Count
	}
	live := 0.0
	if liveN > 0 {
		live = liveSum / float64(liveN)
	}
	irrelevance := mean(get("irrelevance").Accuracy, get("live_irrelevance").Accuracy)
	multiTurn := mean(get("multi_turn_base").Accuracy, get("multi_turn_miss_func").Accuracy,
		get("multi_turn_miss_param").Accuracy, get("multi_turn_long_context").Accuracy)
	agentic := mean(mean(get("web_search_base").Accuracy, get("web_search_no_snippet").Accuracy),
		mean(get("memory_kv").Accuracy, get("memory_vector").Accuracy, get("memory_rec_sum").Accuracy))
	o := Overall{
		Groups:  map[string]float64{"non_live": nonLive, "live": live, "irrelevance": irrelevance, "multi_turn": multiTurn, "agentic": agentic},
		Weights: OverallWeights,
	}
	// calculate_percentage_weighted_accuracy, in BFCL's group order.
	wsum := 0.0
	for _, g := range []string{"non_live", "live", "irrelevance", "multi_turn", "agentic"} {
		wsum += OverallWeights[g]
	}
	for _, g := range []string{"non_live", "live", "irrelevance", "multi_turn", "agentic"} {
		o.Overall += float64(o.Groups[g] * (OverallWeights[g] / wsum))
	}
	for c := range missing {
		o.Missing = append(o.Missing, c)
	}
	sort.Strings(o.Missing)
	return o
}

// TaskCategories maps pocketeval's BFCL v4 task names (prompt mode; the
// same with "_fc" in function-calling mode) to BFCL's categories.
var TaskCategories = map[string]string{
	"bfcl_simple": "simple_python", "bfcl_multiple": "multiple", "bfcl_parallel": "parallel",
	"bfcl_parallel_multiple": "parallel_multiple", "bfcl_irrelevance": "irrelevance",
	"bfcl_live_simple": "live_simple", "bfcl_live_multiple": "live_multiple", "bfcl_live_parallel": "live_parallel",
	"bfcl_live_parallel_multiple": "live_parallel_multiple", "bfcl_live_irrelevance": "live_irrelevance",
	"bfcl_live_relevance":  "live_relevance",
	"bfcl_multi_turn_base": "multi_turn_base", "bfcl_multi_turn_miss_func": "multi_turn_miss_func",
	"bfcl_multi_turn_miss_param": "multi_turn_miss_param", "bfcl_multi_turn_long_context": "multi_turn_long_context",
}
