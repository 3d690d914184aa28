package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/randmodel"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestBatchOnThreadsRefused: --batch on decodes in one thread (a lone
// sequence's attention split between threads is summed otherwise), so
// every command that opens the runtime refuses it with more, exit 2,
// before loading anything.
func TestBatchOnThreadsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "m.gguf")
	for _, args := range [][]string{
		{"run", "--tasks", "alpha", "--out", filepath.Join(dir, "out"), "--concurrency", "2"},
		{"run", "--tasks", "alpha", "--out", filepath.Join(dir, "plan"), "--dry-run"},
		{"serve", "--addr", "127.0.0.1:0", "--parallel", "2"},
		{"bench", "-n", "8", "-p", "0"},
	} {
		args = append(args, "--runtime", "llamacpp", "--model", model, "--batch", "on", "--threads", "2", "--ignore-limits")
		code, out, errOut := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, "--batch on needs --threads 1") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and the refusal", args, code, out, errOut)
		}
	}
}

// TestE2EBatchOn: --batch on gives the samples --batch off gives, bit for
// bit, on a quantized model (Q8_0 and Q4_0 kernels give a row decoded
// beside others the bits it gets alone), and is refused with exit 2 for
// stories260K, whose F32 kernels do not.
func TestE2EBatchOn(t *testing.T) {
	needLlama(t)
	data := sharedtest.Datasets(t)
	story := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	code, out, errOut := runReal(t, "run", "--runtime", "llamacpp", "--model", story, "--tasks", "gsm8k", "--limit", "4",
		"--concurrency", "4", "--batch", "on", "--data-dir", data, "--out", filepath.Join(t.TempDir(), "story"))
	if code != ExitUsage || !strings.Contains(errOut, "--batch on refused") || !strings.Contains(errOut, "F32") {
		t.Errorf("stories260K --batch on: exit %d\n%s\n%s", code, out, errOut)
	}

	s := randmodel.Shapes["tiny"]
	v, err := randmodel.SyntheticBPE(s.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []gguf.TensorType{gguf.Q8_0, gguf.Q4_0} {
		model := filepath.Join(t.TempDir(), "tiny.gguf")
		f, err := os.Create(model)
		if err != nil {
			t.Fatal(err)
		}
		if err := randmodel.Write(f, s, randmodel.Options{Name: "tiny", Type: typ, Vocab: v, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		var samples []string
		for _, mode := range [][]string{{"--batch", "off", "--concurrency", "1"}, {"--batch", "on", "--concurrency", "4"}} {
			dir := filepath.Join(t.TempDir(), "run")
			args := append([]string{"run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--limit", "16",
				"--max-tokens", "64", "--data-dir", data, "--out", dir}, mode...)
			if code, out, errOut := runReal(t, args...); code != 0 {
				t.Fatalf("%v %v: exit %d\n%s\n%s", typ, mode, code, out, errOut)
			}
			samples = append(samples, samplesNoTiming(t, dir, "gsm8k"))
		}
		if samples[0] != samples[1] {
			t.Errorf("%v: --batch on changed the samples:\n%s\n---\n%s", typ, samples[0], samples[1])
		}
	}
}
