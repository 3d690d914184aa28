package results

import (
	"path/filepath"
	"testing"
)

// TestSamplesPathStaysInside: whatever a manifest names a task, its
// samples file is inside samples/ (issue #49).
func TestSamplesPathStaysInside(t *testing.T) {
	for name, want := range map[string]string{"gsm8k": "gsm8k.jsonl", "mmlu_pro-x": "mmlu_pro-x.jsonl", "../../pwned": "%2E%2E%2F%2E%2E%2Fpwned.jsonl", "": "%.jsonl", "A": "%41.jsonl", "-x": "%2Dx.jsonl"} {
		if got := SamplesPath("run", name); got != filepath.Join("run", SamplesDir, want) {
			t.Errorf("SamplesPath(%q) = %s", name, got)
		}
	}
}
