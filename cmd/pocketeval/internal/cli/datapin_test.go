package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestModifiedOfficialDataRefused (issue #49): one byte changed in
// gsm8k's official test.jsonl makes the built-in task refuse it (exit 2,
// naming the file and both digests); --allow-modified-data runs on it and
// records it in the manifest.
func TestModifiedOfficialDataRefused(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "datasets/gsm8k"), "test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "gsm8k"), 0o755)
	edited := bytes.Replace(orig, []byte("Janet"), []byte("Janeт"), 1)
	if err := os.WriteFile(filepath.Join(data, "gsm8k", "test.jsonl"), edited, 0o644); err != nil {
		t.Fatal(err)
	}
	preds := filepath.Join(data, "p.jsonl")
	os.WriteFile(preds, []byte(`{"task":"gsm8k","id":"0","response":"The answer is 18."}`+"\n"), 0o644)
	args := []string{"run", "--tasks", "gsm8k", "--limit", "1", "--runtime", "replay", "--predictions", preds, "--data-dir", data}
	out := filepath.Join(data, "out")
	code, _, errOut := runReal(t, append(args, "--out", out)...)
	if code != ExitUsage || !strings.Contains(errOut, "gsm8k/test.jsonl: sha256 ") || !strings.Contains(errOut, "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused run wrote %s", out)
	}
	code, _, errOut = runReal(t, append(args, "--out", out, "--allow-modified-data")...)
	if code != 0 || !strings.Contains(errOut, "modified official data") {
		t.Fatalf("--allow-modified-data: exit %d:\n%s", code, errOut)
	}
	m, err := results.ReadManifest(out)
	if err != nil || len(m.Config.ModifiedData) != 1 || m.Config.ModifiedData["gsm8k/test.jsonl"] == "" {
		t.Errorf("manifest: %v %v", m.Config.ModifiedData, err)
	}
	for _, cmd := range [][]string{
		{"compare", out, out},
		{"suite", out},
		{"verify", "--data-dir", data, out},
		{"merge", "--data-dir", data, "--out", filepath.Join(data, "merged"), out},
	} {
		_, stdout, errOut := runReal(t, cmd...)
		if !strings.Contains(stdout+errOut, "ran on modified official data") {
			t.Errorf("%s does not say the run used modified data:\n%s%s", cmd[0], stdout, errOut)
		}
	}
}
