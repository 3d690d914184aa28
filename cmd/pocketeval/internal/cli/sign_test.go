package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestSignedRun (issue #49): run --sign-key signs the finished run; verify
// --key accepts it and refuses it once its manifest is forged (digests
// recomputed), and a wrong key; gate --key refuses it, exit 2.
func TestSignedRun(t *testing.T) {
	t.Parallel()
	data := sharedtest.Dir(t, "datasets")
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte("0123456789abcdef-secret\n"), 0o600)
	other := filepath.Join(dir, "other")
	os.WriteFile(other, []byte("another key, long enough"), 0o600)
	preds := filepath.Join(dir, "p.jsonl")
	os.WriteFile(preds, []byte(`{"task":"gsm8k","id":"0","response":"The answer is 18."}`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, errOut := runReal(t, "run", "--tasks", "gsm8k", "--limit", "1", "--runtime", "replay", "--predictions", preds, "--data-dir", data, "--out", out, "--sign-key", key); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	if code, outS, errOut := runReal(t, "verify", "--data-dir", data, "--key", key, out); code != 0 {
		t.Fatalf("verify --key: exit %d\n%s%s", code, outS, errOut)
	}
	if code, outS, _ := runReal(t, "verify", "--data-dir", data, "--key", other, out); code != ExitError || !strings.Contains(outS, "signature") {
		t.Errorf("verify with another key: exit %d\n%s", code, outS)
	}
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	m.Command = append(m.Command, "--forged")
	if err := results.WriteManifest(out, m); err != nil {
		t.Fatal(err)
	}
	if code, outS, _ := runReal(t, "verify", "--data-dir", data, "--key", key, out); code != ExitError || !strings.Contains(outS, "does not match the manifest") {
		t.Errorf("verify of a forged manifest: exit %d\n%s", code, outS)
	}
	policy := filepath.Join(dir, "policy.yaml")
	os.WriteFile(policy, []byte("tasks:\n  gsm8k:\n    max_drop: 1\n"), 0o644)
	if code, _, errOut := runReal(t, "gate", "--baseline", out, "--candidate", out, "--policy", policy, "--key", key, "--data-dir", data); code != ExitUsage || !strings.Contains(errOut, "signature") {
		t.Errorf("gate --key of a forged run: exit %d\n%s", code, errOut)
	}
}
