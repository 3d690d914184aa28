package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestE2ERawThinkingNote: --thinking on|off with raw prompts (no chat
// template renders them) is accepted and said to have no effect;
// model-default says nothing.
func TestE2ERawThinkingNote(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	dir := t.TempDir()
	for _, c := range []struct {
		thinking string
		note     bool
	}{{"off", true}, {"on", true}, {"model-default", false}} {
		code, out, errOut := runReal(t, "run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--limit", "1",
			"--max-tokens", "4", "--raw", "--thinking", c.thinking, "--data-dir", data, "--out", filepath.Join(dir, c.thinking))
		if code != 0 {
			t.Fatalf("--thinking %s: exit %d\n%s\n%s", c.thinking, code, out, errOut)
		}
		if got := strings.Contains(errOut, "--thinking "+c.thinking+" has no effect on raw prompts"); got != c.note {
			t.Errorf("--raw --thinking %s: note shown %v, want %v; stderr %q", c.thinking, got, c.note, errOut)
		}
	}
}
