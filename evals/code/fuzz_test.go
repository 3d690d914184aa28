package code

import (
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
)

// The HumanEval and MBPP loaders on any input: an error naming the file or
// well-formed samples (evalstest.CheckLoadFile). Seeds are in
// testdata/fuzz.

func FuzzLoadHumanEval(f *testing.F) {
	f.Add([]byte(`{"task_id": "HumanEval/0", "prompt": "def add(a, b):\n    \"\"\"Add.\"\"\"\n", "entry_point": "add", "canonical_solution": "    return a + b\n", "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, HumanEval(Options{}), "HumanEval.jsonl", data, evals.LoadConfig{})
	})
}

func FuzzLoadMBPP(f *testing.F) {
	f.Add([]byte(`{"text": "Write a function to add two numbers.", "code": "def add(a, b):\n    return a + b", "task_id": 11, "test_setup_code": "", "test_list": ["assert add(1, 2) == 3"], "challenge_test_list": []}` + "\n"))
	f.Add([]byte(`[{"source_file": "x", "task_id": 11, "prompt": "Write a function to add two numbers.", "code": "def add(a, b):\n    return a + b", "test_imports": [], "test_list": ["assert add(1, 2) == 3"]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		evalstest.CheckLoadFile(t, MBPPFull(Options{}), "mbpp.jsonl", data, evals.LoadConfig{})
	})
}
