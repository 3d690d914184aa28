package choice

import "testing"

func BenchmarkExtract(b *testing.B) {
	opts := []string{"Planetary density will decrease.", "Planetary years will become longer.", "Planetary days will become shorter.", "Planetary gravity will become stronger."}
	inputs := []string{
		"Answer: C",
		"Let me think about the rotation. A faster spin means each day is shorter, so planetary days will become shorter.",
		"根据题意分析，各选项中只有C项正确，故选C。",
		"I am not sure about this one.",
	}
	Extract(inputs[0], opts) // compiles the patterns (first use), untimed
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Extract(inputs[i%len(inputs)], opts)
	}
}

// BenchmarkExtractLong extracts from 200-word answers that name no option
// (every rule runs to the end), as a replay of a weak model's MMLU answers
// does.
func BenchmarkExtractLong(b *testing.B) {
	benchmarkExtractLong(b, []string{"Planetary density will decrease.", "Planetary years will become longer.", "Planetary days will become shorter.", "Planetary gravity will become stronger."})
}

// BenchmarkExtractLongZH is BenchmarkExtractLong with Chinese options, as
// C-Eval and CMMLU have.
func BenchmarkExtractLongZH(b *testing.B) {
	benchmarkExtractLong(b, []string{"行星密度会降低", "行星的一年会变长", "行星的一天会变短", "行星引力会变强"})
}

func benchmarkExtractLong(b *testing.B, opts []string) {
	words := []string{"a", "warm", "of", "naïve", "sat", "on", "then", "über", "café", "cat", "日本", "—", "fell", "Später", "fish", "outside,", "rain", "the", "mat", "softly", "and", "dreamed", "while", "woke."}
	inputs := make([]string, 8)
	for i := range inputs {
		var sb []byte
		for j := 0; j < 200; j++ {
			sb = append(sb, words[(i*7+j*j+j)%len(words)]...)
			sb = append(sb, ' ')
		}
		inputs[i] = string(sb)
	}
	Extract(inputs[0], opts)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Extract(inputs[i%len(inputs)], opts)
	}
}
