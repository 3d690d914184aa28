package mc

import (
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
)

// FuzzLoadARC: the ARC loader on any input gives an error naming the file
// or well-formed samples (evalstest.CheckLoadFile).
func FuzzLoadARC(f *testing.F) {
	f.Add([]byte(`{"id": "Mercury_1", "question": {"stem": "Which is a gas?", "choices": [{"text": "ice", "label": "A"}, {"text": "steam", "label": "B"}]}, "answerKey": "B"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, ARCChallenge(), "ARC-Challenge-Test.jsonl", data, evals.LoadConfig{})
	})
}

// FuzzParseSubjectCSV: a subject file of MMLU, C-Eval or CMMLU on any input
// gives an error naming the file or samples with unique, non-empty ids,
// each with an answer among its options.
func FuzzParseSubjectCSV(f *testing.F) {
	f.Add([]byte("What is 1+1?,1,2,3,4,B\nWhat is 2+2?,4,5,6,7,A\n"))
	f.Add([]byte("id,question,A,B,C,D,answer\n0,1+1=?,1,2,3,4,B\n"))
	f.Add([]byte("\ufeff,Question,A,B,C,D,Answer\n0,\"1+1=?\nplease\",1,2,3,4,B\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := parseSubjectCSV(data, "subject_test.csv", "subject")
		if err != nil {
			if !strings.Contains(err.Error(), "subject_test.csv") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for i, s := range samples {
			if s.ID == "" || seen[s.ID] {
				t.Errorf("sample %d: id %q empty or repeated", i, s.ID)
			}
			seen[s.ID] = true
		}
	})
}
