package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// models convert writes the package's tokenizer, embeddings and
// configuration around what the graph tool writes (here a stand-in script:
// scripts/ci-mnn-convert.sh runs the real tools/mnnconvert), reports it in
// --json, and refuses unusable input with exit code 2 before any work.
func TestModelsConvert(t *testing.T) {
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	dir := t.TempDir()
	tool := filepath.Join(dir, "mnnconvert")
	script := "#!/bin/sh\ngrep -q '^tensor output 512 64 ' \"$1\" || exit 3\n: >\"$3/llm.mnn\"; : >\"$3/llm.mnn.weight\"\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "pkg")
	code, stdout, errOut := run(t, "models", "convert", model, "--out", out, "--tool", tool, "--weights", "int4", "--json")
	if code != 0 {
		t.Fatalf("convert: exit %d\n%s%s", code, stdout, errOut)
	}
	jsonGolden(t, "", stdout, nil)
	var doc struct {
		Arch        string   `json:"arch"`
		Vocab       int      `json:"vocab"`
		Interleaved bool     `json:"rope_interleaved"`
		Notes       []string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Arch != "llama" || doc.Vocab != 512 || !doc.Interleaved || len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "ChatML") {
		t.Fatalf("report: %s", stdout)
	}
	for name, size := range map[string]int64{"embeddings_bf16.bin": 512 * 64 * 2, "tokenizer.txt": -1, "llm_config.json": -1, "config.json": -1} {
		st, err := os.Stat(filepath.Join(out, name))
		if err != nil || (size >= 0 && st.Size() != size) {
			t.Errorf("%s: %v (size want %d)", name, err, size)
		}
	}
	for _, bad := range [][]string{
		{"models", "convert", filepath.Join(dir, "missing.gguf"), "--out", out, "--tool", tool},
		{"models", "convert", model, "--out", out, "--tool", tool, "--weights", "int3"},
		{"models", "convert", model, "--out", out, "--tool", tool, "--embeddings", "fp16"},
		{"models", "convert", model, "--tool", tool},
		{"models", "convert", model, "--out", out, "--tool", filepath.Join(dir, "none")},
	} {
		if code, _, errOut := run(t, bad...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d (%s)", bad[2:], code, ExitUsage, errOut)
		}
	}
}
