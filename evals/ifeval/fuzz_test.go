package ifeval

import (
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
)

// FuzzLoad: the IFEval loader on any input gives an error naming the file
// or well-formed samples, with every skipped record reported as
// file:line (evalstest.CheckLoadFile). Seeds are in testdata/fuzz.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"key": 1000, "prompt": "Write a 300+ word summary.", "instruction_id_list": ["punctuation:no_comma", "length_constraints:number_words"], "kwargs": [{}, {"relation": "at least", "num_words": 300}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, EN, "input_data.jsonl", data, evals.LoadConfig{})
	})
}
