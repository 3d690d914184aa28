package doctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const doc = "# Title\n\n```sh\necho one\n```\n\n" +
	"<!-- doctest: skip needs the network -->\n```sh\ncurl https://example.com\n```\n\n" +
	"<!-- doctest: offline needs a phone -->\n```sh\nadb shell pocketeval serve\n```\n\nOffline:\n\n```console\n$ echo two \\\n    three\ntwo three\n$ false\n$ echo $?\n1\n```\n\n" +
	"<!-- doctest: file gate.yaml -->\n```yaml\nalpha: 0.05\n```\n\n```text\nnot a command\n```\n"

func TestParse(t *testing.T) {
	t.Parallel()
	blocks, err := Parse("doc.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 6 {
		t.Fatalf("%d blocks: %+v", len(blocks), blocks)
	}
	want := []struct {
		lang, kind string
		run        bool
	}{{"sh", "", true}, {"sh", Skip, false}, {"sh", Offline, false}, {"console", "", true}, {"yaml", File, false}, {"text", "", false}}
	for i, w := range want {
		b := blocks[i]
		if b.Lang != w.lang || b.Marker.Kind != w.kind || b.Runnable() != w.run {
			t.Errorf("block %d: %s %q runnable=%v, want %s %q %v", i, b.Lang, b.Marker.Kind, b.Runnable(), w.lang, w.kind, w.run)
		}
	}
	if blocks[4].Marker.Arg != "gate.yaml" || blocks[4].Text != "alpha: 0.05\n" || blocks[0].Line != 3 {
		t.Errorf("blocks %+v", blocks)
	}
	nested, err := Parse("d.md", []byte("1. item\n\n   ```console\n   $ echo hi\n   hi\n   ```\n"))
	if err != nil || len(nested) != 1 || nested[0].Text != "$ echo hi\nhi\n" {
		t.Errorf("an indented block: %+v, %v", nested, err)
	}
	steps := blocks[3].Steps()
	if len(steps) != 3 || steps[0].Cmd != "echo two \\\n    three" || strings.Join(steps[0].Want, "|") != "two three" ||
		steps[2].Cmd != "echo $?" || steps[1].Line != steps[0].Line+3 {
		t.Errorf("steps %+v", steps)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"<!-- doctest: sikp x -->\n```sh\necho\n```\n", `unknown doctest marker "sikp"`},
		{"<!-- doctest: skip -->\n```sh\necho\n```\n", "needs an argument"},
		{"<!-- doctest: skip x -->\n\ntext\n```sh\necho\n```\n", "precedes no block"},
		{"<!-- doctest: skip x -->\n", "precedes no block"},
		{"<!-- doctest: offline phone -->\n```sh\nadb\n```\n```yaml\na: 1\n```\n", "offline equivalent"},
		{"```\n$ pocketeval run --tasks x\n```\n", "a block without a language holds a command"},
		{"```sh\necho\n", "unterminated"},
		{"1. item\n\n   ```\n   $ pocketeval version\n   ```\n", "a block without a language holds a command"},
	} {
		if _, err := Parse("d.md", []byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.doc, err, c.want)
		}
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	got := "TASK   METRIC  VALUE\ngsm8k  exact   0.00   803.7\nnoise\nINCOMPLETE: x\n"
	for _, c := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"TASK METRIC VALUE", "gsm8k exact 0.00 …"}, true},
		{[]string{"TASK\tMETRIC VALUE", "...", "INCOMPLETE: x"}, true},
		{[]string{"gsm8k exact 0.00 803.7", "TASK METRIC VALUE"}, false}, // order
		{[]string{"gsm8k exact 1.00 …"}, false},
		{[]string{"gsm8k"}, false}, // whole lines only
		{[]string{"", "…"}, true},
	} {
		if err := Match(c.want, got); (err == nil) != c.ok {
			t.Errorf("Match(%q) = %v, want ok=%v", c.want, err, c.ok)
		}
	}
}

// TestSession: exported variables and the directory carry from block to
// block; a console block's steps report their own output and status, and
// `$?` is the previous command's.
func TestSession(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	s, err := NewSession(dir, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.RunScript("export GREETING=hello\ncd sub\necho ok\n")
	if err != nil || r.Exit != 0 || r.Output != "ok\n" {
		t.Fatalf("script: %+v %v", r, err)
	}
	if r, _ := s.RunScript("false\necho not reached\n"); r.Exit == 0 || strings.Contains(r.Output, "not reached") {
		t.Errorf("set -e: %+v", r)
	}
	blocks, _ := Parse("d.md", []byte("```console\n$ echo $GREETING from $(basename $PWD)\n$ (exit 3)\n$ echo $?\n```\n"))
	res, err := s.RunSteps(blocks[0].Steps())
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Output != "hello from sub" || res[0].Exit != 0 || res[1].Exit != 3 || res[2].Output != "3" {
		t.Errorf("steps %+v", res)
	}
}
