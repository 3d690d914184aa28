package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/energy"
)

// TestGateBudgets gates two runs on quality and on-device budgets read
// from a bench --json report given with --bench, or the candidate's
// bench.json.
func TestGateBudgets(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if code, _, e := run(t, "run", "--runtime", "fake", "--tasks", "alpha", "--out", dir); code != 0 {
			t.Fatal(e)
		}
	}
	capacity, _ := energy.RatedCapacity(6000, 3.87)
	en := energy.Summarize(energy.Description{Name: "battery"}, 0, 1,
		[]energy.Round{{IncrementJoules: 2.6}, {IncrementJoules: 2.7}, {IncrementJoules: 2.8}}, &capacity)
	report := &bench.Report{Model: "pocket", PackageBytes: 173 << 20, Center: "median",
		Memory: bench.Memory{Test: "pp1024+tg128", IncrementBytes: 290 << 20},
		Rows: []bench.Row{{Test: bench.Test{Name: "pp1024+tg128", NPrompt: 1024, NGen: 128},
			Prefill: bench.Summarize([]float64{700, 710, 720}), Decode: bench.Summarize([]float64{240, 251, 260}), Energy: &en}}}
	reportPath := filepath.Join(t.TempDir(), "phone.json")
	f, err := os.Create(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteJSON(f, report); err != nil {
		t.Fatal(err)
	}
	f.Close()
	policy := filepath.Join(t.TempDir(), "gate.yaml")
	write := func(text string) {
		if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("defaults: {max_drop: 100}\nbudgets:\n  decode_tok_s_min: 200\n  peak_mem_increment_mb_max: 300\n  battery_pct_per_100_max: 1\n")
	md := filepath.Join(t.TempDir(), "summary.md")
	code, _, errOut := run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy, "--bench", reportPath, "--markdown", md)
	if code != 0 {
		t.Fatalf("gate within budgets: code %d\n%s", code, errOut)
	}
	if m, err := os.ReadFile(md); err != nil || !strings.Contains(string(m), "| budget battery_pct_per_100_max | battery % per 100 inferences (phone.json: pp1024+tg128") {
		t.Errorf("markdown: %v\n%s", err, m)
	}
	write("defaults: {max_drop: 100}\nbudgets:\n  decode_tok_s_min: 300\n")
	code, _, errOut = run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy, "--bench", reportPath)
	if code != ExitError || !strings.Contains(errOut, "regression: budget decode_tok_s_min: 251 is below the budget ≥ 300") {
		t.Errorf("over budget: code %d\n%s", code, errOut)
	}
	// No report: the candidate's bench.json, else a clear failure.
	write("defaults: {max_drop: 100}\nbudgets:\n  energy_j_per_inference_max: 3\n")
	code, _, errOut = run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy)
	if code != ExitError || !strings.Contains(errOut, "budget energy_j_per_inference_max: not measured: no bench report with energy") {
		t.Errorf("missing measurement: code %d\n%s", code, errOut)
	}
	data, _ := os.ReadFile(reportPath)
	if err := os.WriteFile(filepath.Join(b, "bench.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy); code != 0 {
		t.Errorf("candidate's bench.json: code %d\n%s", code, errOut)
	}
	if code, _, errOut := run(t, "gate", "--baseline", a, "--candidate", b, "--policy", policy, "--bench", filepath.Join(b, "nope.json")); code != ExitUsage {
		t.Errorf("unreadable report: code %d\n%s", code, errOut)
	}
}
