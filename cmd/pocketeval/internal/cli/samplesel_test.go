package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSampleSelection(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := filepath.Join(dir, "sel.txt")
	os.WriteFile(lines, []byte("# rerun these\ngsm8k:17\n\nmmlu:anatomy/3\n"), 0o644)
	obj := filepath.Join(dir, "sel.json")
	os.WriteFile(obj, []byte(`{"gsm8k": [2, "17"], "arc_challenge": ["Mercury_7175875"]}`), 0o644)
	got, err := parseSampleSelection([]string{"gsm8k:5", "ifeval:a:b", "@" + lines, "@" + obj})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"gsm8k":         {"17", "2", "5"},
		"ifeval":        {"a:b"},
		"mmlu":          {"anatomy/3"},
		"arc_challenge": {"Mercury_7175875"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if sel, err := parseSampleSelection(nil); sel != nil || err != nil {
		t.Errorf("no flag: %v, %v", sel, err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("gsm8k:1\nnocolon\n"), 0o644)
	for _, in := range []string{"gsm8k", ":3", "gsm8k:", "@" + bad, "@" + filepath.Join(dir, "missing")} {
		if _, err := parseSampleSelection([]string{in}); err == nil {
			t.Errorf("%q: no error", in)
		} else if in == "@"+bad && !strings.Contains(err.Error(), "bad.txt:2") {
			t.Errorf("%q: %v does not name the line", in, err)
		}
	}
}
