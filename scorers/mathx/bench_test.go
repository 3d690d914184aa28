package mathx

import (
	"fmt"
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

// longResponses are degenerate responses of n bytes: a model that loops
// on its reasoning, on boxes, or on a box it never closes, with an answer
// at the end.
func longResponse(kind string, n int) string {
	unit := map[string]string{
		"prose":   "Janet's ducks lay 16 eggs per day. She eats 3 and bakes 4, so 16 - 3 - 4 = 9 eggs remain. She sells them at $2 each: 9 * 2 = $18 per day. ",
		"boxes":   `so \boxed{18} and \fbox{18} `,
		"openbox": `\boxed{`,
		"cues":    "The answer is 18. Answer: 18 ",
		"zh":      "嗯，先算 16-3-4=9，再算 9×2=18，再检查一下 3+4+9=16。答案是十八。",
	}[kind]
	end := ` The answer is $\boxed{18}$.`
	return strings.Repeat(unit, (n-len(end))/len(unit)+1)[:n-len(end)] + end
}

// BenchmarkExtractLong measures what a scorer does with one long response
// (numeric: Strict and Flexible, as GSM8K and MGSM score; latex:
// MathStrict and MathFlexible, as MATH-500 scores), in MB/s of response.
func BenchmarkExtractLong(b *testing.B) {
	ex := NewNumericExtractor("The answer is")
	for _, size := range []int{64 << 10, 1 << 20, 16 << 20} {
		for _, kind := range []string{"prose", "boxes", "openbox", "cues", "zh"} {
			resp := longResponse(kind, size)
			b.Run(fmt.Sprintf("%s/%dKiB/numeric", kind, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(resp)))
				for b.Loop() {
					ex.Strict(resp)
					ex.Flexible(resp)
				}
			})
			b.Run(fmt.Sprintf("%s/%dKiB/latex", kind, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(resp)))
				for b.Loop() {
					MathStrict(resp)
					MathFlexible(resp)
				}
			})
		}
	}
}

// BenchmarkFlexibleNoCue is a response without any answer cue (a runaway
// or a stand-in's word chain): the needles spare it every cue pattern.
func BenchmarkFlexibleNoCue(b *testing.B) {
	ex := NewNumericExtractor("The final answer is", "The answer is").StrictLastCue()
	resp := strings.Repeat("softly while of rain woke. Später outside, then café fish on a 日本 über naïve ", 12)
	b.ReportAllocs()
	for b.Loop() {
		ex.Flexible(resp)
		ex.Strict(resp)
	}
}
