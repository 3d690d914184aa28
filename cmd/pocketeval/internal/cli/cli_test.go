package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/spf13/pflag"
)

// cliTask is a small deterministic task for command tests.
type cliTask struct {
	name string
	n    int
}

func (t cliTask) Info() evals.TaskInfo {
	return evals.TaskInfo{Name: t.name, Version: "1", PrimaryMetric: "acc", Metrics: []string{"acc"}, DatasetFiles: []string{t.name + "/data.jsonl"}}
}

func (t cliTask) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	d := &evals.Dataset{Files: map[string]string{t.name + "/data.jsonl": "feed"}}
	for i := 0; i < t.n; i++ {
		d.Samples = append(d.Samples, evals.Sample{ID: strconv.Itoa(i), Input: fmt.Sprintf("%s question %d", t.name, i), Target: strconv.Itoa(i % 3)})
	}
	return d, nil
}

func (t cliTask) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	return runtime.Request{Messages: []runtime.Message{{Role: "user", Content: s.Input}}, Gen: cfg.Gen}, nil
}

func (t cliTask) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	v := 0.0
	if out.Text == s.Target {
		v = 1
	}
	return evals.Score{Values: map[string]float64{"acc": v}, Extracted: out.Text}, nil
}

// cliRuntime answers with a digit derived from the prompt and max tokens.
type cliRuntime struct{}

func (cliRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	h := fnv.New32a()
	fmt.Fprint(h, req.Messages[0].Content, req.Gen.MaxTokens)
	return runtime.Response{Text: strconv.Itoa(int(h.Sum32() % 3)), FinishReason: runtime.FinishStop,
		PromptTokens: 5, CompletionTokens: 1, Timings: runtime.Timings{DecodeTokPerSec: 1000 + float64(time.Now().UnixNano()%7)}}, nil
}
func (cliRuntime) Close() error { return nil }

func testFactory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	io, _, out, errb := TestStreams()
	f := &Factory{
		IO:       io,
		Tasks:    func() []evals.Task { return []evals.Task{cliTask{"alpha", 30}, cliTask{"beta", 12}} },
		Now:      func() time.Time { return time.Unix(1700000000, 0) },
		Args:     []string{"pocketeval", "test"},
		Runtimes: testRuntimes,
	}
	return f, out, errb
}

// testRuntimes are the real runtimes plus "fake", which opens cliRuntime.
func testRuntimes() []drivers.Driver {
	return append(drivers.All(), drivers.Driver{Name: "fake", NewFlags: func() drivers.Flags { return fakeFlags{} }})
}

// fakeFlags are the "fake" runtime's (empty) flags.
type fakeFlags struct{}

func (fakeFlags) AddFlags(*pflag.FlagSet)                     {}
func (fakeFlags) Validate(drivers.Common) error               { return nil }
func (fakeFlags) Model(drivers.Common) (drivers.Model, error) { return drivers.Model{}, nil }
func (fakeFlags) Open(context.Context, drivers.Common) (runtime.Runtime, error) {
	return cliRuntime{}, nil
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errb := testFactory()
	code := Execute(context.Background(), f, args)
	return code, out.String(), errb.String()
}

func TestTasksJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, "tasks", "--json")
	var doc struct {
		Tasks []evals.TaskInfo `json:"tasks"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Tasks) != 2 || doc.Tasks[0].Name != "alpha" {
		t.Fatalf("code %d out %s", code, out)
	}
	code, out, _ = run(t, "tasks")
	if code != 0 || !strings.Contains(out, "PRIMARY METRIC") || !strings.Contains(out, "beta/data.jsonl") {
		t.Errorf("table:\n%s", out)
	}
}

func TestRunUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--runtime", "fake", "--out", dir}, "--tasks or --suite is required"},
		{[]string{"run", "--runtime", "fake", "--tasks", "alpah", "--out", dir}, `unknown task "alpah" (did you mean alpha?)`},
		{[]string{"run", "--runtime", "fake", "--tasks", "alpha"}, "--out is required"},
		{[]string{"run", "--runtime", "fake", "--tasks", "alpha", "--out", dir, "--shard", "3/3"}, "--shard"},
		{[]string{"run", "--runtime", "fake", "--tasks", "alpha", "--out", dir, "--concurrency", "0"}, "--concurrency"},
		{[]string{"run", "--runtime", "fake", "--tasks", "alpha", "--out", dir, "--mode", "x"}, "--mode"},
		{[]string{"run", "--tasks", "alpha", "--out", dir, "--bogus"}, "unknown flag: --bogus"},
		{[]string{"run", "--runtime", "fake", "--tasks", "alpha", "--out", dir, "--suite", "nosuch"}, "unknown suite"},
	} {
		code, _, errOut := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func TestRunResumeAndConfigMismatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", dir, "--concurrency", "3"}
	code, out, errOut := run(t, args...)
	if code != 0 || !strings.Contains(out, "alpha") || !strings.Contains(out, "95% CI") {
		t.Fatalf("code %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = run(t, args...)
	if code != 0 || !strings.Contains(errOut, "42 samples reused, 0 generated") {
		t.Errorf("resume: code %d, %s", code, errOut)
	}
	code, _, errOut = run(t, append(args, "--max-tokens", "7")...)
	if code != ExitUsage || !strings.Contains(errOut, "different configuration") || !strings.Contains(errOut, "--force") {
		t.Errorf("mismatch: code %d, %s", code, errOut)
	}
	code, _, errOut = run(t, append(args, "--max-tokens", "7", "--force")...)
	if code != 0 {
		t.Errorf("--force: code %d, %s", code, errOut)
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"schema_version": 99}`), 0o644)
	code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", dir)
	if code == 0 || !strings.Contains(errOut, "newer pocketeval") {
		t.Errorf("code %d, %s", code, errOut)
	}
}

// stripTiming removes the timing objects from JSON documents and lines.
func stripTiming(t *testing.T, data []byte) string {
	t.Helper()
	var b strings.Builder
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			// A whole (indented) document.
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			dropKey(v, "timing")
			out, _ := json.Marshal(v)
			return string(out)
		}
		dropKey(v, "timings")
		out, _ := json.Marshal(v)
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

func dropKey(v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, key)
		for _, y := range x {
			dropKey(y, key)
		}
	case []any:
		for _, y := range x {
			dropKey(y, key)
		}
	}
}

// TestDeterminism: two runs with the same configuration give byte-identical
// summaries and sample lines apart from the timing fields.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	var outs [2]map[string]string
	for i := range outs {
		dir := t.TempDir()
		code, _, errOut := run(t, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", dir, "--concurrency", strconv.Itoa(1+3*i))
		if code != 0 {
			t.Fatal(errOut)
		}
		outs[i] = map[string]string{}
		for _, f := range []string{"summary.json", "samples/alpha.jsonl", "samples/beta.jsonl"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			outs[i][f] = stripTiming(t, data)
		}
	}
	for f, a := range outs[0] {
		if b := outs[1][f]; a != b {
			t.Errorf("%s differs between two identical runs:\n%s\n---\n%s", f, a, b)
		}
	}
}

func TestCompareAndGateCommands(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", a); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", b, "--max-tokens", "3"); code != 0 {
		t.Fatal(e)
	}
	code, out, errOut := run(t, "compare", a, b)
	if code != 0 || !strings.Contains(out, "mcnemar-exact") || !strings.Contains(out, "B−A") {
		t.Fatalf("compare: %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, "compare", a, b, "--json")
	var cmp map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &cmp) != nil {
		t.Errorf("compare --json: %d %s", code, out)
	}
	// Misaligned runs are refused with exit 2.
	c := t.TempDir()
	run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", c, "--limit", "10")
	if code, _, errOut := run(t, "compare", a, c); code != ExitUsage || !strings.Contains(errOut, "do not align") {
		t.Errorf("misaligned compare: %d %s", code, errOut)
	}

	policy := filepath.Join(t.TempDir(), "gate.yaml")
	os.WriteFile(policy, []byte("defaults:\n  min_score: 99\n"), 0o644)
	junit := filepath.Join(t.TempDir(), "gate.xml")
	md := filepath.Join(t.TempDir(), "summary.md")
	code, _, errOut = run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy, "--junit", junit, "--markdown", md)
	if code != ExitError || !strings.Contains(errOut, "regression") {
		t.Errorf("gate: code %d %s", code, errOut)
	}
	if x, err := os.ReadFile(junit); err != nil || !bytes.Contains(x, []byte("<failure")) {
		t.Errorf("junit: %v %s", err, x)
	}
	if m, err := os.ReadFile(md); err != nil || !bytes.Contains(m, []byte("| alpha |")) {
		t.Errorf("markdown: %v %s", err, m)
	}
	os.WriteFile(policy, []byte("defaults:\n  max_drop: 100\n"), 0o644)
	if code, _, errOut := run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy); code != 0 {
		t.Errorf("lenient gate: %d %s", code, errOut)
	}
	os.WriteFile(policy, []byte("alpha: 7\n"), 0o644)
	if code, _, errOut := run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy); code != ExitUsage || !strings.Contains(errOut, "alpha") {
		t.Errorf("bad policy: %d %s", code, errOut)
	}
	if code, _, _ := run(t, "gate", "--baseline", a, "--candidate", filepath.Join(a, "nope"), "--policy", policy); code != ExitUsage {
		t.Errorf("unreadable candidate: %d", code)
	}
	// Leaderboard renders both runs, grouped by the registry's capabilities,
	// with a suite's reference row.
	html := filepath.Join(t.TempDir(), "board.html")
	if code, _, errOut := run(t, "leaderboard", a, b, "--html", html, "--suite", "pocket11"); code != 0 {
		t.Fatal(errOut)
	}
	if h, _ := os.ReadFile(html); !bytes.Contains(h, []byte("<svg")) || !bytes.Contains(h, []byte(">math</th>")) || !bytes.Contains(h, []byte("MNN-Pocket-0.3B")) {
		t.Error("leaderboard HTML lacks plots, capability groups or the reference row")
	}
	if code, _, errOut := run(t, "leaderboard", a, "--suite", "nope"); code != ExitUsage || !strings.Contains(errOut, "--suite") {
		t.Errorf("unknown suite: %d %s", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := run(t, "version", "--json")
	var bi BuildInfo
	if code != 0 || json.Unmarshal([]byte(out), &bi) != nil || bi.GoVersion == "" {
		t.Errorf("version: %d %s", code, out)
	}
}

func TestMergeCommand(t *testing.T) {
	t.Parallel()
	whole := t.TempDir()
	if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", whole); code != 0 {
		t.Fatal(e)
	}
	var shards []string
	for i := 0; i < 3; i++ {
		d := t.TempDir()
		if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", d, "--shard", fmt.Sprintf("%d/3", i)); code != 0 {
			t.Fatal(e)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if code, _, e := run(t, append(append([]string{"merge"}, shards...), "--out", merged)...); code != 0 {
		t.Fatal(e)
	}
	a, _ := os.ReadFile(filepath.Join(whole, "summary.json"))
	b, _ := os.ReadFile(filepath.Join(merged, "summary.json"))
	if stripTiming(t, a) != stripTiming(t, b) {
		t.Errorf("merged summary differs:\n%s\n---\n%s", a, b)
	}
	if code, _, e := run(t, "merge", shards[0], "--out", filepath.Join(t.TempDir(), "m")); code != ExitUsage || !strings.Contains(e, "missing shards") {
		t.Errorf("incomplete merge: %d %s", code, e)
	}
	m, _ := results.ReadManifest(merged)
	if m.Status != results.StatusComplete {
		t.Errorf("merged manifest status %q", m.Status)
	}
}
