package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/suite"
)

// ctxDriver is a runtime with a context: prompts longer than --fake-ctx
// characters cannot succeed (it preflights them), and the context size
// is a setting that changes outputs.
func ctxDriver() drivers.Driver {
	return drivers.Driver{Name: "fakectx", Caps: drivers.Caps{InProcess: true}, NewFlags: func() drivers.Flags { return &ctxFlags{Ctx: 1000} }}
}

type ctxFlags struct{ Ctx int }

func (f *ctxFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.Ctx, "fake-ctx", f.Ctx, "context of the fakectx runtime, in characters")
}
func (f *ctxFlags) Validate(drivers.Common) error               { return nil }
func (f *ctxFlags) Model(drivers.Common) (drivers.Model, error) { return drivers.Model{}, nil }
func (f *ctxFlags) Settings() map[string]any                    { return map[string]any{"ctx": f.Ctx} }
func (f *ctxFlags) Open(context.Context, drivers.Common) (runtime.Runtime, error) {
	return ctxRuntime{ctx: f.Ctx}, nil
}

type ctxRuntime struct {
	cliRuntime
	ctx int
}

func (r ctxRuntime) Preflight(req runtime.Request) error {
	if n := len(req.Messages[0].Content); n > r.ctx {
		return fmt.Errorf("%w: %d characters, the context holds %d", llamacpp.ErrPromptTooLong, n, r.ctx)
	}
	return nil
}

func (r ctxRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if err := r.Preflight(req); err != nil {
		return runtime.Response{}, err
	}
	return r.cliRuntime.Generate(ctx, req)
}

func runCtx(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errb := testFactory()
	f.Runtimes = func() []drivers.Driver { return append(testRuntimes(), ctxDriver()) }
	code := Execute(context.Background(), f, args)
	return code, out.String(), errb.String()
}

// TestRunRefusesBadNumbers: flags no run can use are usage errors, before
// anything is loaded or written.
func TestRunRefusesBadNumbers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flag, value, want string }{
		{"--max-tokens", "-5", "--max-tokens must be >= 0"},
		{"--top-p", "2", "--top-p must be in [0, 1]"},
		{"--top-p", "NaN", "must be a finite number"},
		{"--temperature", "-1", "--temperature must be >= 0"},
		{"--temperature", "nan", "must be a finite number"},
		{"--num-fewshot", "-2", "--num-fewshot must be >= 0"},
		{"--samples-per-task", "0", "--samples-per-task must be >= 1"},
		{"--threads", "-1", "--threads must be >= 1"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", out, c.flag, c.value)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d, %q; want 2 and %q", c.flag, c.value, code, errOut, c.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s %s: %s was created", c.flag, c.value, out)
		}
	}
}

// TestPreflightRefusesWhatCannotSucceed: prompts longer than the context
// refuse the run up front (exit 2, nothing written, the fix named);
// --keep-going runs them as failures, and the error carries no retry hint
// because a retry fails the same way.
func TestPreflightRefusesWhatCannotSucceed(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	// "alpha question N" is 16 or 17 characters: 10 of 30 do not fit in 16.
	code, stdout, errOut := runCtx(t, "run", "--runtime", "fakectx", "--fake-ctx", "16", "--tasks", "alpha,beta", "--out", out)
	if code != ExitUsage || !strings.Contains(errOut, "task alpha: 20 of 30 selected samples cannot succeed; first, sample 10") ||
		strings.Contains(errOut, "task beta") || !strings.Contains(errOut, "--ctx-size") || !strings.Contains(errOut, "--keep-going") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run created %s", out)
	}
	code, _, errOut = runCtx(t, "run", "--runtime", "fakectx", "--fake-ctx", "5", "--tasks", "alpha", "--out", out)
	if code != ExitUsage || !strings.Contains(errOut, "all 30 selected samples cannot succeed") || !strings.Contains(errOut, "leave out the tasks no sample of which can run: alpha") {
		t.Errorf("nothing fits: exit %d\n%s", code, errOut)
	}
	code, stdout, errOut = runCtx(t, "run", "--runtime", "fakectx", "--fake-ctx", "16", "--tasks", "alpha", "--out", out, "--keep-going")
	if code != ExitError || !strings.Contains(errOut, "FAILED alpha: 20 of 30 samples failed") || strings.Contains(errOut, "again") {
		t.Errorf("--keep-going: exit %d\n%s\n%s", code, stdout, errOut)
	}
	if i, j := strings.Index(errOut, "FAILED"), strings.Index(errOut, "20 samples failed"); i < 0 || j < i {
		t.Errorf("the failed task is not reported first:\n%s", errOut)
	}
}

// TestRunTableShowsNoUnmeasuredNumbers: a task in which nothing was
// scored shows "failed", never 0.00.
func TestRunTableShowsNoUnmeasuredNumbers(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, errOut := runCtx(t, "run", "--runtime", "fakectx", "--fake-ctx", "5", "--tasks", "alpha,beta", "--out", out, "--keep-going")
	if code != ExitError {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && (f[0] == "alpha" || f[0] == "beta") && f[2] != "failed" {
			t.Errorf("row %q: want failed", line)
		}
	}
	if strings.Contains(stdout, "0.00") {
		t.Errorf("a number for nothing measured:\n%s", stdout)
	}
}

// TestResumeRefusesOutputSettings: a resume with a setting that changes
// outputs is refused; threads and concurrency may change, and each
// invocation is a segment of the manifest.
func TestResumeRefusesOutputSettings(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	base := []string{"run", "--runtime", "fakectx", "--tasks", "alpha", "--out", out}
	if code, _, errOut := runCtx(t, append(base, "--limit", "10", "--concurrency", "2")...); code != 0 {
		t.Fatal(errOut)
	}
	code, _, errOut := runCtx(t, append(base, "--fake-ctx", "999")...)
	if code != ExitUsage || !strings.Contains(errOut, `runtime_settings: {"ctx":1000} (existing) vs {"ctx":999} (now)`) {
		t.Errorf("ctx change: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCtx(t, append(base, "--concurrency", "1", "--threads", "2")...); code != 0 {
		t.Fatalf("resume with other threads and concurrency: %s", errOut)
	}
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) != 2 {
		t.Fatalf("%d segments, want 2: %+v", len(m.Segments), m.Segments)
	}
	a, b := m.Segments[0], m.Segments[1]
	if a.Concurrency != 2 || a.Threads != 1 || a.Generated != 10 || b.Concurrency != 1 || b.Threads != 2 || b.Generated != 20 ||
		a.Status != results.StatusComplete || b.End == nil {
		t.Errorf("segments %+v", m.Segments)
	}
}

// TestUserSuite: --suite FILE.yaml runs a suite of the embedded schema
// (reported numbers, metric overrides); a wrong entry is a usage error
// naming the file, line and field, before anything runs.
func TestUserSuite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yaml")
	os.WriteFile(good, []byte("name: mine\nreported_average: 20\ntasks:\n  - {task: alpha, metric: acc, reported: 15}\n  - {task: beta}\n"), 0o644)
	out := filepath.Join(dir, "run")
	code, stdout, errOut := run(t, "run", "--runtime", "fake", "--suite", good, "--out", out)
	if code != 0 || !strings.Contains(stdout, "SUITE mine") || !strings.Contains(stdout, "AVERAGE") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	for _, c := range []struct{ text, want string }{
		{"name: bad\ntasks:\n  - {task: alpha}\n  - {task: alpah}\n", `bad.yaml:4: tasks[1]: field "task": unknown task "alpah" (did you mean alpha?)`},
		{"name: bad\ntasks:\n  - {task: alpha, metric: f1}\n", `bad.yaml:3: tasks[0]: field "metric": task alpha has no metric "f1"`},
		{"name: bad\ntasks:\n  - {task: alpha, reported: 101}\n", `bad.yaml:3: tasks[0]: field "reported"`},
	} {
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		os.WriteFile(bad, []byte(c.text), 0o644)
		out := filepath.Join(t.TempDir(), "run")
		code, _, errOut := run(t, "run", "--runtime", "fake", "--suite", bad, "--out", out)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %s; want 2 and %q", c.text, code, errOut, c.want)
		}
		if code, _, errOut := run(t, "suite", out, "--suite", bad); code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("suite %q: exit %d, %s", c.text, code, errOut)
		}
	}
}

// TestEmbeddedSuitesCheck: every embedded suite names registered tasks and
// metrics they report.
func TestEmbeddedSuitesCheck(t *testing.T) {
	t.Parallel()
	for _, n := range suite.Names() {
		if _, err := loadSuite(n, registry.All()); err != nil {
			t.Errorf("suite %s: %v", n, err)
		}
	}
}

// TestSandboxRunMissingFile: a program file that does not exist is a usage
// error (exit 2), not a failing program (exit 1).
func TestSandboxRunMissingFile(t *testing.T) {
	t.Parallel()
	code, _, errOut := run(t, "sandbox", "run", filepath.Join(t.TempDir(), "missing.py"))
	if code != ExitUsage || !strings.Contains(errOut, "no such file") {
		t.Errorf("exit %d, %s", code, errOut)
	}
}

// TestCompareUnusableInputs: every kind of input compare cannot use exits
// 2: an unreadable run, and runs with no task in common.
func TestCompareUnusableInputs(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", a); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "beta", "--out", b); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := run(t, "compare", a, b); code != ExitUsage || !strings.Contains(e, "no task in common") {
		t.Errorf("disjoint runs: exit %d, %s", code, e)
	}
	if code, _, e := run(t, "compare", a, filepath.Join(b, "nope")); code != ExitUsage {
		t.Errorf("unreadable run: exit %d, %s", code, e)
	}
}
