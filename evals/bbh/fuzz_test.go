package bbh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// FuzzReadTask: a BBH task file on any input gives an error naming the
// file or samples with unique ids.
func FuzzReadTask(f *testing.F) {
	f.Add([]byte(`{"canary": "x", "examples": [{"input": "not ( True ) and ( True ) is", "target": "False"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "boolean_expressions.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		samples, err := readTask(path, "boolean_expressions", &evals.Dataset{Files: map[string]string{}})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, s := range samples {
			if s.ID == "" || seen[s.ID] {
				t.Errorf("id %q empty or repeated", s.ID)
			}
			seen[s.ID] = true
		}
	})
}

// FuzzParsePrompt: any prompt file parses or fails without panicking.
func FuzzParsePrompt(f *testing.F) {
	f.Add("BIG-Bench Hard canary\n-----\nEvaluate the result.\n\nQ: True and False is\nA: Let's think step by step.\nFalse. So the answer is False.\n\nQ: not True is\nA: Let's think step by step.\nSo the answer is False.")
	f.Fuzz(func(t *testing.T, raw string) {
		_, _ = parsePrompt(raw)
	})
}
