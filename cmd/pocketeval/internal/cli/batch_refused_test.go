package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBatchOnRefused: llama.cpp's batched decoding changes greedy texts
// (a token decoded beside others is computed with other kernels than one
// decoded alone; runtime/llamacpp TestBatchInvarianceProbe), so every
// command that opens the runtime refuses --batch on with exit 2 before
// any work, saying why and what to use instead.
func TestBatchOnRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gguf")
	for _, args := range [][]string{
		{"run", "--tasks", "alpha", "--out", filepath.Join(dir, "out"), "--concurrency", "4"},
		{"run", "--tasks", "alpha", "--out", filepath.Join(dir, "plan"), "--dry-run"},
		{"serve", "--addr", "127.0.0.1:0", "--parallel", "4"},
		{"bench", "-n", "8", "-p", "0"},
	} {
		args = append(args, "--runtime", "llamacpp", "--model", model, "--batch", "on")
		code, out, errOut := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, "--batch on is refused") || !strings.Contains(errOut, "Use --batch off") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and the refusal", args, code, out, errOut)
		}
	}
}
