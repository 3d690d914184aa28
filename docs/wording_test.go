package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestQuantizationSaysWhichTopP: llama-perplexity's "Same top p" is its
// top-1 agreement; quantization.md's anchor table must not label
// pocketeval's top-1 agreement with it alone, as if it were pocketeval's
// "same top-p set" figure (issue 48).
func TestQuantizationSaysWhichTopP(t *testing.T) {
	t.Parallel()
	root, err := sharedtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "quantization.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "|") && strings.Contains(line, "Same top p") && !strings.Contains(line, "top-1 agreement") {
			t.Errorf("quantization.md:%d: %q labels a figure \"Same top p\" without saying it is top-1 agreement", i+1, line)
		}
	}
	if !strings.Contains(string(b), "`same top-p set %`") {
		t.Error("quantization.md does not say what pocketeval's same-top-p-set line is")
	}
}
