package ifeval

import "testing"

// BenchmarkScoreGPT4 evaluates the 540 conformance responses (strict and
// loose) on precompiled prompts, single-threaded.
func BenchmarkScoreGPT4(b *testing.B) {
	cases := loadConformance(b)
	b.ResetTimer()
	for range b.N {
		for _, c := range cases {
			c.prompt.Evaluate(c.response)
		}
	}
}

// BenchmarkCompile measures building the checkers of all 540 prompts.
func BenchmarkCompile(b *testing.B) {
	cases := loadConformance(b)
	b.ResetTimer()
	for range b.N {
		for _, c := range cases {
			var ins []Instruction
			for j, id := range c.in.InstructionIDList {
				ins = append(ins, Instruction{ID: id, Kwargs: c.in.Kwargs[j]})
			}
			if _, err := Compile(ins, Config{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
