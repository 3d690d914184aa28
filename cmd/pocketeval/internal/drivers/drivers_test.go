package drivers

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

// TestFlagsAreTheirOwn: every runtime's flags have names distinct from
// the common ones, and a flag two runtimes define (a command registers it
// once for both) has the same type and default in both.
func TestFlagsAreTheirOwn(t *testing.T) {
	t.Parallel()
	owner := map[string]string{"runtime": "common", "model": "common", "threads": "common", "chat-template": "common", "thinking": "common", "ignore-limits": "common"}
	seen := map[string]*pflag.Flag{}
	for _, d := range All() {
		if d.Name == "" || d.Summary == "" || d.NewFlags == nil {
			t.Errorf("driver %+v is incomplete", d)
			continue
		}
		fs := pflag.NewFlagSet(d.Name, pflag.ContinueOnError)
		d.NewFlags().AddFlags(fs)
		fs.VisitAll(func(f *pflag.Flag) {
			prev, dup := owner[f.Name]
			switch {
			case dup && prev == "common":
				t.Errorf("--%s is defined by %s and is a common flag", f.Name, d.Name)
			case dup && (seen[f.Name].Value.Type() != f.Value.Type() || seen[f.Name].DefValue != f.DefValue):
				t.Errorf("--%s is defined by %s and %s with different types or defaults", f.Name, prev, d.Name)
			}
			owner[f.Name], seen[f.Name] = d.Name, f
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	if d, err := Lookup(All(), "llamacpp"); err != nil || !d.Caps.InProcess || !d.Caps.Bench || !d.Caps.LocalModel {
		t.Errorf("llamacpp: %+v, %v", d, err)
	}
	var ue *UnknownError
	if _, err := Lookup(All(), "onnx"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "llamacpp, mnn, openai, replay") {
		t.Errorf("unknown: %v", err)
	}
	if _, err := Lookup(All(), ""); err == nil || !strings.Contains(err.Error(), "--runtime is required") {
		t.Errorf("empty: %v", err)
	}
}

func TestLocalModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "w.bin"), []byte("abc"), 0o644)
	m, err := LocalModel(dir)
	if err != nil || len(m.Files) != 2 || m.Files["sub/w.bin"] != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("directory: %+v, %v", m, err)
	}
	m, err = LocalModel(filepath.Join(dir, "config.json"))
	if err != nil || len(m.Files) != 1 || m.Files["config.json"] == "" {
		t.Errorf("file: %+v, %v", m, err)
	}
	if _, err := LocalModel(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// TestReplayRawPrompts: only a predictions file made entirely of
// human-eval completions asks for raw prompts.
func TestReplayRawPrompts(t *testing.T) {
	t.Parallel()
	f := &replayFlags{}
	check := func(lines string, want bool) {
		t.Helper()
		rt, err := replay.Read(strings.NewReader(lines), "p.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if got := f.RawPrompts(rt) != ""; got != want {
			t.Errorf("RawPrompts(%q) = %v, want %v", lines, got, want)
		}
	}
	check(`{"task_id": "HumanEval/0", "completion": "    return 1\n"}`+"\n", true)
	check(`{"task_id": "HumanEval/0", "completion": "x"}`+"\n"+`{"task": "gsm8k", "id": "0", "response": "4"}`+"\n", false)
}

// TestReplayModelHashedOnce: Model records the digest LocalModel computes,
// taken while the predictions were read, and Open hands out the runtime
// Model opened; a file that does not open is hashed alone and Open
// reports it.
func TestReplayModelHashedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"p.jsonl", "bad.jsonl"} {
		path := filepath.Join(dir, name)
		body := `{"task": "gsm8k", "id": "0", "response": "4"}` + "\n"
		if name == "bad.jsonl" {
			body = "{\n"
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := LocalModel(path)
		if err != nil {
			t.Fatal(err)
		}
		f := &replayFlags{Predictions: path}
		got, err := f.Model(Common{})
		if err != nil || got.Path != want.Path || !maps.Equal(got.Files, want.Files) {
			t.Errorf("%s: Model = %+v, %v; want %+v", name, got, err, want)
		}
		opened := f.opened
		rt, err := f.Open(context.Background(), Common{})
		if name == "bad.jsonl" {
			if err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
				t.Errorf("%s: Open = %v", name, err)
			}
			continue
		}
		if err != nil || rt != runtime.Runtime(opened) || f.opened != nil {
			t.Fatalf("%s: Open = %v, %v; want the runtime Model opened", name, rt, err)
		}
		rt.Close()
		// A second Open reads the file again.
		rt2, err := f.Open(context.Background(), Common{})
		if err != nil || rt2 == rt {
			t.Errorf("%s: second Open = %v, %v", name, rt2, err)
		}
		rt2.Close()
	}
}
