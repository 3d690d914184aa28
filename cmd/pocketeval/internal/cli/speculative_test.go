package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestSpeculativeFlag: --speculative is one flag shared by the runtimes
// with speculative decoding, each checking its own modes; the others
// refuse it, naming the runtimes that have it.
func TestSpeculativeFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ args, want string }{
		{"--runtime mnn --model m --speculative lookahead --speculative-verify", ""},
		{"--runtime llamacpp --model m --speculative draft --draft-model d.gguf --speculative-verify", ""},
		{"--runtime openai --model m --base-url http://127.0.0.1:1/v1 --speculative draft", "--speculative: --runtime openai has no speculative decoding (runtimes that do: llamacpp, mnn)"},
		{"--runtime replay --model p.jsonl --speculative-verify", "--runtime replay has no speculative decoding"},
		{"--runtime mnn --model m --speculative draft", `--speculative "draft": want one of lookahead, mtp, eagle, dflash`},
		{"--runtime mnn --model m --speculative-verify", "--speculative-verify needs --speculative lookahead|mtp|eagle|dflash"},
		{"--runtime llamacpp --model m --speculative-verify", "--speculative-verify needs --speculative draft"},
	} {
		var o RuntimeOptions
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		o.AddFlags(fs)
		if err := fs.Parse(strings.Fields(c.args)); err != nil {
			t.Fatal(err)
		}
		err := o.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
	var o RuntimeOptions
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.AddFlags(fs)
	if help := fs.Lookup("speculative").Usage; !strings.Contains(help, "llamacpp: draft") || !strings.Contains(help, "mnn: lookahead") {
		t.Errorf("--speculative help %q: want every runtime's modes", help)
	}
}

// TestE2ESpeculativeVerify runs GSM8K on the story model with itself as
// the draft model and --speculative-verify: every answer is decoded with
// and without drafts and compared (here all agree), and the manifest
// records the draft model and the check.
func TestE2ESpeculativeVerify(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errOut := runReal(t, "run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--limit", "5", "--max-tokens", "32",
		"--batch", "off", "--speculative", "draft", "--draft-model", model, "--draft-max", "4", "--speculative-verify", "--data-dir", data, "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Runtime.Settings
	if s["draft_model"] != model || fmt.Sprint(s["draft_max"]) != "4" || s["speculative_verify"] == nil {
		t.Errorf("manifest runtime settings lack the draft model and the check: %v", s)
	}
}
