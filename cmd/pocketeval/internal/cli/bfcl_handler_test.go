package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestRunBFCLHandler: --bfcl-handler (a handler's name or a model name of
// BFCL's registry) decodes a published Hermes result file as BFCL does,
// records the handler in the task version, and an unknown handler or one
// given without a bfcl task exits 2 before anything runs.
func TestRunBFCLHandler(t *testing.T) {
	data := sharedtest.Datasets(t)
	dir := t.TempDir()
	preds := filepath.Join(dir, "hermes.jsonl")
	lines := []string{
		`{"id": "simple_0", "result": "<tool_call>\n{\"arguments\": {\"base\": 10, \"height\": 5}, \"name\": \"calculate_triangle_area\"}\n</tool_call>\n"}`,
		`{"id": "simple_1", "result": "<tool_call>\n{\"arguments\": {\"number\": 5}, \"name\": \"math_factorial\"}\n</tool_call>\n"}`,
	}
	if err := os.WriteFile(preds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--runtime", "replay", "--predictions", preds, "--data-dir", data, "--limit", "2"}
	for _, h := range []string{"hermes", "NousResearch/Hermes-2-Pro-Llama-3-8B"} {
		out := filepath.Join(dir, strings.ReplaceAll(h, "/", "_"))
		code, stdout, stderr := runReal(t, append(base, "--tasks", "bfcl_v2_simple", "--bfcl-handler", h, "--out", out)...)
		if code != 0 {
			t.Fatalf("--bfcl-handler %s: exit %d\n%s%s", h, code, stdout, stderr)
		}
		s, err := results.ReadSummary(out)
		if err != nil {
			t.Fatal(err)
		}
		// BFCL's verdicts (gorilla 4a64db34, HermesHandler): both valid
		if ts := s.Tasks["bfcl_v2_simple"]; ts == nil || ts.Primary != 1 {
			t.Errorf("--bfcl-handler %s: %+v", h, ts)
		}
		m, err := os.ReadFile(filepath.Join(out, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(m), "1+handler.hermes") {
			t.Errorf("manifest does not record the handler:\n%s", m)
		}
		// verify re-scores with the recorded handler
		if code, stdout, stderr := runReal(t, "verify", out, "--data-dir", data); code != 0 || !strings.Contains(stdout, "0 records differ") {
			t.Errorf("verify: exit %d\n%s%s", code, stdout, stderr)
		}
	}
	// Without the handler the same answers are not BFCL's prompt format.
	out := filepath.Join(dir, "default")
	if code, stdout, stderr := runReal(t, append(base, "--tasks", "bfcl_v2_simple", "--out", out)...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if s, err := results.ReadSummary(out); err != nil || s.Tasks["bfcl_v2_simple"].Primary != 0 {
		t.Errorf("default decoder: %v %+v", err, s)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tasks", "bfcl_v2_simple", "--bfcl-handler", "hermse"}, `unknown BFCL handler "hermse"`},
		{[]string{"--tasks", "bfcl_simple", "--bfcl-handler", "gorilla"}, `"gorilla" is not in BFCL v4`},
		{[]string{"--tasks", "gsm8k", "--bfcl-handler", "hermes"}, "--bfcl-handler applies to bfcl tasks only"},
	} {
		code, stdout, stderr := runReal(t, append(append(base, c.args...), "--out", filepath.Join(dir, "bad"))...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bad")); err == nil {
		t.Error("a refused run wrote its result directory")
	}
}
