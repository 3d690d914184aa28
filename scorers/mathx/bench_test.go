package mathx

import (
	"strings"
	"testing"
)

func BenchmarkEquivalent(b *testing.B) {
	pairs := [][2]string{
		{`\frac{1}{2}`, `0.5`},
		{`\left( 3, \frac{\pi}{2} \right)`, `(3, \pi/2)`},
		{`x^2+7x+10`, `10 + 7x + x^2`},
		{`(-\infty,1)\cup(2,\infty)`, `(2,\infty)\cup(-\infty,1)`},
		{`\text{Evelyn}`, `evelyn`},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pairs {
			Equivalent(p[0], p[1])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pairs)), "ns/pair")
}

func BenchmarkFlexible(b *testing.B) {
	ex := NewNumericExtractor("The answer is")
	resp := "Janet's ducks lay 16 eggs per day. She eats 3 and bakes 4, so 16 - 3 - 4 = 9 eggs remain. " +
		"She sells them at $2 each: 9 * 2 = $18 per day. Checking: 3 + 4 + 9 = 16. The answer is 18."
	b.ReportAllocs()
	for b.Loop() {
		ex.Flexible(resp)
		ex.Strict(resp)
	}
}

func BenchmarkFlexibleLongReasoning(b *testing.B) {
	ex := NewNumericExtractor("答案是")
	resp := strings.Repeat("嗯，先算 16-3-4=9，再算 9×2=18，再检查一下 3+4+9=16。", 400) + "</think>\n\n所以答案是 $\\boxed{18}$。"
	b.SetBytes(int64(len(resp)))
	b.ReportAllocs()
	for b.Loop() {
		ex.Flexible(resp)
		ex.Strict(resp)
	}
}

func BenchmarkFlexibleLongNoThink(b *testing.B) {
	ex := NewNumericExtractor("答案是")
	resp := strings.Repeat("嗯，先算 16-3-4=9，再算 9×2=18，再检查一下 3+4+9=16。答案是 18。", 400)
	b.SetBytes(int64(len(resp)))
	b.ReportAllocs()
	for b.Loop() {
		ex.Flexible(resp)
		ex.Strict(resp)
	}
}
