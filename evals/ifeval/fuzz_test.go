package ifeval

import (
	"reflect"
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

// FuzzRecordPaths: a record read by fastRecord gives the sample (or the
// error) that the encoding/json path gives.
func FuzzRecordPaths(f *testing.F) {
	for _, s := range []string{
		`{"key": 1000, "prompt": "Write a 300+ word summary.", "instruction_id_list": ["punctuation:no_comma", "length_constraints:number_words"], "kwargs": [{}, {"relation": "at least", "num_words": 300}]}`,
		`{"key": 1, "prompt": "caf\u00e9 \"q\" \\ \/", "instruction_id_list": ["keywords:existence"], "kwargs": [{"keywords": ["a", "b\n"], "x": null, "y": [1.5e3, true, {"z": -0}]}]}`,
		`{"key": 2, "prompt": "p", "instruction_id_list": [], "kwargs": []}`,
		`{"key": 3, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [null]}`,
		`{"key": 4, "Prompt": "p", "prompt": "q", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`,
		`{"key": "5", "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`,
		`{"key": 6, "prompt": "\ud83d\ude00 \ud800", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`,
		`{"key": 7, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{"a": 1, "a": null}]} x`,
		`{"key": 8, "prompt": "p", "instruction_id_list": ["keywords:frequency"], "kwargs": [{"keyword": "k", "frequency": 2, "relation": "less than", "frequency": 3}]}`,
		`{"key": 01, "prompt": "p", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}], "extra": {"key": 2}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fastSample, fastErr := EN.parseRecord("f.jsonl", 3, string(raw))
		slowSample, slowErr := EN.parseRecordJSON("f.jsonl", 3, raw)
		if (fastErr == nil) != (slowErr == nil) || fastErr != nil && fastErr.Error() != slowErr.Error() {
			t.Fatalf("%q: errors differ: %v / %v", raw, fastErr, slowErr)
		}
		if fastErr != nil {
			return
		}
		delete(fastSample.Meta, metaCompiled)
		delete(slowSample.Meta, metaCompiled)
		if !reflect.DeepEqual(fastSample, slowSample) {
			t.Fatalf("%q: samples differ:\n%#v\n%#v", raw, fastSample, slowSample)
		}
	})
}
