package compare

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
)

// passMetric is the per-sample verdict pass@k is estimated from.
const passMetric = "pass"

// pairedValues returns the values the paired test compares for metric:
// its per-sample values when the samples store it; for pass@k, which only
// the aggregate computes, the unbiased estimate per problem (Chen et al.
// 2021: 1 - C(n-c, k)/C(n, k) over the n samples of a problem, c of them
// passing) from the per-sample pass, keyed by problem — with one sample
// per problem and k = 1 that is pass itself. basis describes a derived
// value ("" for the metric's own); an empty map means none could be found.
func pairedValues(r *rundir.Run, task, metric string) (vals map[results.Key]float64, basis string, err error) {
	vals, err = r.PerSample(task, metric)
	if err != nil || len(vals) > 0 {
		return vals, "", err
	}
	k, ok := passAtK(metric)
	if !ok {
		return vals, "", nil
	}
	pass, err := r.PerSample(task, passMetric)
	if err != nil || len(pass) == 0 {
		return vals, "", err
	}
	type count struct{ n, c int }
	per := map[string]*count{}
	for key, v := range pass {
		c := per[key.ID]
		if c == nil {
			c = &count{}
			per[key.ID] = c
		}
		c.n++
		if v == 1 {
			c.c++
		}
	}
	ids := make([]string, 0, len(per))
	for id, c := range per {
		if c.n < k {
			return map[results.Key]float64{}, "", nil // pass@k undefined for this problem
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make(map[results.Key]float64, len(ids))
	for _, id := range ids {
		c := per[id]
		out[results.Key{ID: id}] = codescore.PassAtK(c.n, c.c, k)
	}
	return out, fmt.Sprintf("%s per problem (unbiased estimate from per-sample %s)", metric, passMetric), nil
}

// passAtK parses "pass@k".
func passAtK(metric string) (int, bool) {
	s, ok := strings.CutPrefix(metric, "pass@")
	if !ok {
		return 0, false
	}
	k, err := strconv.Atoi(s)
	return k, err == nil && k >= 1
}
