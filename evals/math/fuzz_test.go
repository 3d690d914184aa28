package math

import (
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
)

// The dataset parsers of the math tasks on any input: an error naming the
// file or well-formed samples (evalstest.CheckLoadFile). Seeds are in
// testdata/fuzz.

func FuzzLoadGSM8K(f *testing.F) {
	f.Add([]byte("{\"question\": \"Tom has 3 apples and buys 4. How many?\", \"answer\": \"3 + 4 = <<3+4=7>>7\\n#### 7\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, GSM8K{}, "test.jsonl", data, evals.LoadConfig{})
	})
}

func FuzzLoadMATH500(f *testing.F) {
	f.Add([]byte(`{"problem": "What is $1+1$?", "solution": "$\\boxed{2}$", "answer": "2", "subject": "Algebra", "level": 1, "unique_id": "test/algebra/1.json"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, MATH500{}, "test.jsonl", data, evals.LoadConfig{})
	})
}

func FuzzLoadMGSM(f *testing.F) {
	f.Add([]byte("Tom has 3 apples and buys 4. How many?\t7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, MGSM{Lang: "en"}, "mgsm_en.tsv", data, evals.LoadConfig{})
	})
}
