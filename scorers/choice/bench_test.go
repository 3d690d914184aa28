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
