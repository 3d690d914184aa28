package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestRunRefusesToolsNotRendered: an FC-mode BFCL task on a model whose
// chat template renders no tools (the story model's ChatML fallback) is
// refused before anything runs (exit 2, naming the function that would
// not reach the prompt); with a tool template it runs.
func TestRunRefusesToolsNotRendered(t *testing.T) {
	needLlama(t)
	data := sharedtest.Datasets(t)
	model := filepath.Join(sharedtest.Models(t), "gguf", "stories260K.gguf")
	args := []string{"run", "--runtime", "llamacpp", "--model", model, "--threads", "1", "--tasks", "bfcl_simple_fc",
		"--limit", "1", "--max-tokens", "4", "--data-dir", data}
	code, _, errOut := runReal(t, append(args, "--out", t.TempDir())...)
	if code != 2 || !strings.Contains(errOut, "does not render tools") || !strings.Contains(errOut, "does not reach the prompt") {
		t.Errorf("FC task on the ChatML fallback: exit %d\n%s", code, errOut)
	}
	qwen := "../../../../runtime/chattemplate/testdata/templates/qwen2.5-7b-instruct.jinja"
	code, _, errOut = runReal(t, append(args, "--chat-template", qwen, "--out", t.TempDir())...)
	if code != 0 {
		t.Errorf("FC task with Qwen2.5's template: exit %d\n%s", code, errOut)
	}
}
