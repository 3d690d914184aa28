package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestThreadsAndFlashAttention: llama.cpp's CPU flash attention (its
// default) adds a long context's attention in parts per thread, so the
// thread count reaches the last bits of the logits and, over long
// generations, greedy tokens. With --flash-attn off two threads give the
// bytes of one; with flash attention a resume with another --threads is
// refused as a setting that changes outputs, and --flash-attn is one too.
func TestThreadsAndFlashAttention(t *testing.T) {
	needLlama(t)
	if testing.Short() {
		t.Skip("long generations on the story model")
	}
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	e2eLlamaSlots <- struct{}{}
	defer func() { <-e2eLlamaSlots }()
	args := func(out string, extra ...string) []string {
		return append([]string{"run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--limit", "3",
			"--max-tokens", "900", "--ctx-size", "2048", "--ignore-limits", "--data-dir", data, "--out", out}, extra...)
	}
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	for _, c := range []struct {
		out     string
		threads string
	}{{one, "1"}, {two, "2"}} {
		if code, _, errOut := runReal(t, args(c.out, "--threads", c.threads, "--flash-attn", "off")...); code != 0 {
			t.Fatalf("--threads %s --flash-attn off: exit %d\n%s", c.threads, code, errOut)
		}
	}
	if a, b := samplesBytes(t, one, "gsm8k"), samplesBytes(t, two, "gsm8k"); a != b {
		t.Errorf("--flash-attn off: 1 and 2 threads differ:\n%s\n---\n%s", a, b)
	}

	// Flash attention (auto): the thread count is part of the
	// configuration once above 1.
	auto := filepath.Join(dir, "auto")
	if code, _, errOut := runReal(t, args(auto, "--threads", "2", "--limit", "1", "--max-tokens", "8")...); code != 0 {
		t.Fatalf("--threads 2: exit %d\n%s", code, errOut)
	}
	code, _, errOut := runReal(t, args(auto, "--threads", "1", "--limit", "2", "--max-tokens", "8")...)
	if code != ExitUsage || !strings.Contains(errOut, `"threads":2`) {
		t.Errorf("resume with 1 thread of a 2-thread run under flash attention: exit %d, want %d naming threads\n%s", code, ExitUsage, errOut)
	}
	code, _, errOut = runReal(t, args(one, "--threads", "1", "--limit", "4", "--max-tokens", "900")...)
	if code != ExitUsage || !strings.Contains(errOut, `"flash_attn":"off"`) {
		t.Errorf("resume without --flash-attn off: exit %d, want %d naming flash_attn\n%s", code, ExitUsage, errOut)
	}
	code, _, errOut = runReal(t, args(filepath.Join(dir, "bad"), "--flash-attn", "maybe")...)
	if code != ExitUsage || !strings.Contains(errOut, "--flash-attn must be auto, on or off") {
		t.Errorf("--flash-attn maybe: exit %d\n%s", code, errOut)
	}
}
