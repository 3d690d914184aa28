package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// TestNonFiniteFlagsRefused: --temperature nan (and every other number
// flag set to NaN or an infinity) is a usage error before anything is
// created. Issue 21: it failed mid-run with "json: unsupported value: NaN"
// and left an empty result directory.
func TestNonFiniteFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--runtime", "fake", "--tasks", "alpha", "--temperature", "nan"},
		{"run", "--runtime", "fake", "--tasks", "alpha", "--temperature", "+Inf"},
		{"run", "--runtime", "fake", "--tasks", "alpha", "--top-p", "-inf"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		code, _, errOut := run(t, append(args, "--out", out)...)
		if code != ExitUsage || !strings.Contains(errOut, "must be a finite number") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the flag", args, code, errOut)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: created %s", args, out)
		}
	}
	code, _, errOut := run(t, "compare", t.TempDir(), t.TempDir(), "--alpha", "NaN")
	if code != ExitUsage || !strings.Contains(errOut, "--alpha NaN: must be a finite number") {
		t.Errorf("compare --alpha NaN: exit %d, stderr %q", code, errOut)
	}
}

// TestRunLimits: run and serve refuse --threads, --concurrency, --parallel
// and --ctx-size beyond the machine and the model with exit 2, before the
// model is loaded, and --ignore-limits lets them through. Issue 21.
func TestRunLimits(t *testing.T) {
	t.Parallel()
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--threads", "100000"}, "--threads: 100000 threads per engine"},
		{[]string{"run", "--concurrency", "100000"}, "--concurrency/--parallel: 100000 engine contexts"},
		{[]string{"run", "--ctx-size", "100000000"}, "--ctx-size: 100000000 tokens, but the model was trained on contexts of 2048"},
		{[]string{"serve", "--parallel", "100000", "--addr", "127.0.0.1:0"}, "--concurrency/--parallel: 100000 engine contexts"},
	} {
		args := append(c.args, "--runtime", "llamacpp", "--model", model)
		if c.args[0] == "run" {
			args = append(args, "--tasks", "alpha", "--out", filepath.Join(t.TempDir(), "run"))
		}
		code, _, errOut := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "--ignore-limits") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// --ignore-limits: the checks are skipped (validation only; nothing
	// is loaded).
	ro := RuntimeOptions{Name: "llamacpp", Model: model, Threads: 100000, Workers: 100000, IgnoreLimits: true}
	if err := ro.Validate(); err != nil {
		t.Errorf("--ignore-limits: %v", err)
	}
}

// TestSummaryWithoutScoredSamples: the run table shows a task whose
// samples all failed as failed, never as 0.00. Issue 21.
func TestSummaryWithoutScoredSamples(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	PrintSummary(&b, &results.Summary{Order: []string{"gsm8k"}, Tasks: map[string]*results.TaskSummary{
		"gsm8k": {PrimaryMetric: "exact_match_flexible", Metrics: map[string]stats.Summary{}, Samples: 10, Errors: 10},
	}})
	if !strings.Contains(b.String(), "failed") || strings.Contains(b.String(), "0.00") {
		t.Errorf("table:\n%s", b.String())
	}
}

// TestBadDatasetRecordExit2: a malformed IFEval record stops the run with
// exit 2, naming file and line, before a result directory exists; with
// --skip-bad-records the record is skipped and reported on stderr, not
// only inside summary.json. Issue 21.
func TestBadDatasetRecordExit2(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "ifeval.jsonl")
	if err := os.WriteFile(data, []byte(`{"key": 1, "prompt": "Say hi.", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}`+"\n"+
		`{"key": 2, "prompt": "p", "instruction_id_list": ["made:up"], "kwargs": [{}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, errb := realFactory()
	f.Runtimes = testRuntimes
	out := filepath.Join(t.TempDir(), "o")
	code := Execute(context.Background(), f, []string{"run", "--runtime", "fake", "--tasks", "ifeval", "--dataset-file", data, "--out", out})
	if code != ExitUsage || !strings.Contains(errb.String(), data+":2:") || !strings.Contains(errb.String(), "--skip-bad-records") {
		t.Errorf("exit %d, stderr %q; want 2 naming %s:2 and the flag", code, errb.String(), data)
	}
	if _, err := os.Stat(filepath.Join(out, results.ManifestFile)); err == nil {
		t.Error("a refused dataset left a result directory")
	}
	f, _, errb = realFactory()
	f.Runtimes = testRuntimes
	code = Execute(context.Background(), f, []string{"run", "--runtime", "fake", "--tasks", "ifeval", "--dataset-file", data, "--out", out, "--skip-bad-records"})
	if code != ExitOK || !strings.Contains(errb.String(), data+":2:") || !strings.Contains(errb.String(), "record skipped") {
		t.Errorf("--skip-bad-records: exit %d, stderr %q", code, errb.String())
	}
}

// TestSecondRunRefused: a run into a result directory another process is
// writing exits 2 naming that process's pid. Issue 21.
func TestSecondRunRefused(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "o")
	lock, err := results.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", out)
	if code != ExitUsage || !strings.Contains(errOut, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("exit %d, stderr %q; want 2 naming pid %d", code, errOut, os.Getpid())
	}
}
