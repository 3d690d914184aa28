package gate

import (
	"fmt"
	"strings"
	"testing"
)

// policyWithTasks is a gate policy with n task entries.
func policyWithTasks(n int) []byte {
	var b strings.Builder
	b.WriteString("alpha: 0.05\ndefaults: {max_drop: 2.0, require_significance: true}\ntasks:\n")
	for i := range n {
		fmt.Fprintf(&b, "  task%06d: {max_drop: 1.5, min_score: 40}\n", i)
	}
	return []byte(b.String())
}

// BenchmarkParsePolicy: parsing is linear in the number of task entries
// (ns/entry stays flat from 1k to 300k entries). Issue 21: 10k entries
// took 2.4 s and 30k 16 s.
func BenchmarkParsePolicy(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000, 300000} {
		data := policyWithTasks(n)
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				p, err := ParsePolicy("gate.yaml", data, nil)
				if err != nil || len(p.Tasks) != n {
					b.Fatalf("%d tasks, %v", len(p.Tasks), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
		})
	}
}
