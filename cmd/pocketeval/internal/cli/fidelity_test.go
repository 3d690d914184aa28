package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// The release workflow of docs/quantization.md on stories260K: quantize,
// save the reference over a text and over a run's prompts, compare, and
// pair the answers of two runs.
func TestFidelityWorkflow(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	text := filepath.Join(data, "bbh", "cot-prompts", "date_understanding.txt")
	dir := t.TempDir()
	q4 := filepath.Join(dir, "q4.gguf")
	if code, out, errOut := runReal(t, "fidelity", "quantize", "--model", model, "--type", "Q4_0", "-o", q4); code != 0 {
		t.Fatalf("quantize: %d\n%s%s", code, out, errOut)
	}
	ref := filepath.Join(dir, "ref.logits")
	if code, out, errOut := runReal(t, "fidelity", "reference", "--runtime", "llamacpp", "--model", model, "--text", text, "--ctx", "128", "--chunks", "3", "-o", ref); code != 0 || !strings.Contains(out, "1032 per position") {
		t.Fatalf("reference: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runReal(t, "fidelity", "compare", "--ref", ref, "--runtime", "llamacpp", "--model", q4, "--json")
	if code != 0 {
		t.Fatalf("compare: %d\n%s%s", code, out, errOut)
	}
	if err := checkJSONConvention([]byte(out)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Report struct {
			Positions int
			KLMean    struct{ Value float64 } `json:"kl_mean"`
			Top1      struct{ Value float64 } `json:"top1_agreement"`
		}
	}
	json.Unmarshal([]byte(out), &doc)
	if doc.Report.Positions != 3*63 || doc.Report.KLMean.Value <= 0.01 || doc.Report.Top1.Value >= 1 {
		t.Fatalf("report %+v", doc.Report)
	}
	// Another vocabulary: refused before anything is compared.
	random := sharedtest.Dir(t, "models/gguf/llama-2-tiny-random.gguf")
	if code, _, errOut := runReal(t, "fidelity", "compare", "--ref", ref, "--runtime", "llamacpp", "--model", random); code != ExitUsage || !strings.Contains(errOut, "vocabulary differs") {
		t.Fatalf("other vocabulary: exit %d, %s", code, errOut)
	}
	if code, _, _ := runReal(t, "fidelity", "reference", "--runtime", "llamacpp", "--model", model, "-o", ref); code != ExitUsage {
		t.Fatalf("no --text nor --prompts: exit %d", code)
	}

	if testing.Short() {
		return // the two runs below take a while on a loaded machine
	}
	// Answers: the same twenty ARC questions scored by log-likelihood.
	var runs []string
	for _, m := range []string{model, q4} {
		out := filepath.Join(dir, filepath.Base(m)+".run")
		if code, o, e := runReal(t, "run", "--runtime", "llamacpp", "--model", m, "--tasks", "arc_challenge", "--mode", "loglik", "--limit", "20", "--data-dir", data, "--out", out); code != 0 {
			t.Fatalf("run %s: %d\n%s%s", m, code, o, e)
		}
		runs = append(runs, out)
	}
	code, out, errOut = runReal(t, "fidelity", "flips", runs[0], runs[1], "--json")
	if code != 0 || !strings.Contains(out, `"task": "arc_challenge"`) || !strings.Contains(out, `"right_to_wrong"`) {
		t.Fatalf("flips: %d\n%s%s", code, out, errOut)
	}
	prompts := filepath.Join(dir, "prompts.logits")
	if code, out, errOut := runReal(t, "fidelity", "reference", "--runtime", "llamacpp", "--model", model, "--prompts", runs[0], "--ctx", "128", "-o", prompts); code != 0 || !strings.Contains(out, "20 sequences") {
		t.Fatalf("reference over prompts: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runReal(t, "fidelity", "compare", "--ref", prompts, "--runtime", "llamacpp", "--model", q4); code != 0 || !strings.Contains(out, "KL divergence mean") {
		t.Fatalf("compare over prompts: %d\n%s%s", code, out, errOut)
	}
}

// A tight KL bound fails Q4_0 of stories260K and passes Q8_0; every key is
// its own JUnit case.
func TestFidelityGate(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	text := filepath.Join(sharedtest.Datasets(t), "bbh", "cot-prompts", "date_understanding.txt")
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.logits")
	if code, out, errOut := runReal(t, "fidelity", "reference", "--runtime", "llamacpp", "--model", model, "--text", text, "--ctx", "128", "-o", ref); code != 0 {
		t.Fatalf("reference: %d\n%s%s", code, out, errOut)
	}
	policy := filepath.Join(dir, "gate.yaml")
	os.WriteFile(policy, []byte("max_kl_mean: 0.01\nmin_top1_agreement: 90\nmax_ppl_increase_pct: 2\n"), 0o644)
	for typ, want := range map[string]int{"Q8_0": 0, "Q4_0": ExitError} {
		q := filepath.Join(dir, typ+".gguf")
		if code, out, errOut := runReal(t, "fidelity", "quantize", "--model", model, "--type", typ, "-o", q); code != 0 {
			t.Fatalf("quantize: %d\n%s%s", code, out, errOut)
		}
		junit := filepath.Join(dir, typ+".xml")
		code, out, errOut := runReal(t, "fidelity", "gate", "--policy", policy, "--ref", ref, "--runtime", "llamacpp", "--model", q, "--junit", junit)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s%s", typ, code, want, out, errOut)
		}
		x, _ := os.ReadFile(junit)
		if !strings.Contains(string(x), `tests="3"`) || !strings.Contains(string(x), `name="max_kl_mean"`) || (want != 0) != strings.Contains(string(x), "<failure") {
			t.Errorf("%s junit:\n%s", typ, x)
		}
	}
	if code, _, _ := runReal(t, "fidelity", "gate", "--policy", policy); code != ExitUsage {
		t.Errorf("token keys without --ref: exit %d", code)
	}
}
