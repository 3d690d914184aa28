package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestBadInputFilesExit2 (issues 36 and 38): bad input files are refused
// before anything runs, exit 2, with the file, the line and the field.
func TestBadInputFilesExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl := write("bad.jinja", "hello\n{% for m in messages %}\n{{ m.content\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"BOM", []string{"--runtime", "replay", "--predictions", write("bom.jsonl", "\ufeff{\"task\":\"alpha\",\"id\":\"0\",\"response\":\"1\"}\n")}, []string{"bom.jsonl:1:", "UTF-8 BOM"}},
		{"no response", []string{"--runtime", "replay", "--predictions", write("nofield.jsonl", "{\"task\":\"alpha\",\"id\":\"0\",\"response\":\"1\"}\n{\"task\":\"alpha\",\"id\":\"1\"}\n")}, []string{"nofield.jsonl:2:", `field "response": missing`}},
		{"no completion", []string{"--runtime", "replay", "--predictions", write("he.jsonl", "{\"task_id\":\"0\"}\n")}, []string{"he.jsonl:1:", `field "completion"`}},
		{"invalid UTF-8", []string{"--runtime", "replay", "--predictions", write("utf.jsonl", "{\"task\":\"alpha\",\"id\":\"0\",\"response\":\"a\xff\"}\n")}, []string{"utf.jsonl:1:", `field "response": invalid UTF-8`}},
		{"missing predictions", []string{"--runtime", "replay", "--predictions", filepath.Join(dir, "nope.jsonl")}, []string{"--predictions", "nope.jsonl: no such file"}},
		{"FIFO predictions", []string{"--runtime", "replay", "--predictions", fifo}, []string{"fifo.jsonl is a named pipe, not a regular file"}},
		{"model directory", []string{"--runtime", "llamacpp", "--model", dir}, []string{"is a directory", "GGUF"}},
		{"chat template", []string{"--runtime", "llamacpp", "--model", write("m.gguf", "GGUF"), "--chat-template", tmpl}, []string{"bad.jinja:3:", "unexpected end of template"}},
	} {
		args := append([]string{"run", "--tasks", "alpha", "--out", filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))}, c.args...)
		code, _, errOut := run(t, args...)
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want 2\n%s", c.name, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, errOut)
			}
		}
	}
}

// TestLoneSurrogateWarning: a predictions file holding lone surrogate
// escapes is scored (the escapes read as U+FFFD) with a warning that
// names the lines; a file without them gets none.
func TestLoneSurrogateWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var lines []string
	for i := range 30 {
		resp := "1"
		switch i {
		case 4:
			resp = `\ud800 lone`
		case 5:
			resp = `\ud83d\ude00 a pair`
		}
		lines = append(lines, `{"task":"alpha","id":"`+strconv.Itoa(i)+`","response":"`+resp+`"}`)
	}
	preds := filepath.Join(dir, "lone.jsonl")
	if err := os.WriteFile(preds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, "run", "--tasks", "alpha", "--runtime", "replay", "--predictions", preds, "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if want := "warning: " + preds + ": 1 prediction holds a lone UTF-16 surrogate escape"; !strings.Contains(errOut, want) || !strings.Contains(errOut, "line 5)") {
		t.Errorf("stderr lacks %q (line 5):\n%s", want, errOut)
	}
	lines[4] = `{"task":"alpha","id":"4","response":"\\ud800 escaped backslash"}`
	if err := os.WriteFile(preds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "run", "--tasks", "alpha", "--runtime", "replay", "--predictions", preds, "--out", filepath.Join(dir, "out2")); code != 0 || strings.Contains(errOut, "surrogate") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}
