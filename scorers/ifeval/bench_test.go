package ifeval

import "testing"

// BenchmarkScoreGPT4 evaluates the 540 conformance responses (strict and
// loose) on precompiled prompts, single-threaded (run it with
// GOMAXPROCS=1). Besides wall time per pass it reports the process's CPU
// time per pass (cpu-ns/op), which a loaded machine inflates less.
func BenchmarkScoreGPT4(b *testing.B) {
	cases := loadConformance(b)
	cases[0].prompt.Evaluate(cases[0].response) // load langdetect's profiles
	b.ResetTimer()
	cpu0, ok := processCPU()
	for range b.N {
		for _, c := range cases {
			c.prompt.Evaluate(c.response)
		}
	}
	if cpu1, ok1 := processCPU(); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
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
