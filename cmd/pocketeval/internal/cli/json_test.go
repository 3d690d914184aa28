package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/golden"
)

// jsonGolden checks a --json document against the convention
// (docs/json.md) and, when name is not empty, against
// testdata/json/<name>.json after replacing each of dirs (temporary
// directories) with its placeholder and dropping keys that hold
// measurements of speed ("timing").
func jsonGolden(t *testing.T, name string, doc string, dirs map[string]string) {
	t.Helper()
	if err := checkJSONConvention([]byte(doc)); err != nil {
		t.Errorf("%s: %v\n%s", name, err, doc)
	}
	if name == "" {
		return
	}
	// Longest first: a directory inside another gets its own placeholder.
	keys := make([]string, 0, len(dirs))
	for dir := range dirs {
		keys = append(keys, dir)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, dir := range keys {
		quoted, _ := json.Marshal(dir)
		doc = strings.ReplaceAll(doc, strings.Trim(string(quoted), `"`), dirs[dir])
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	dropKey(v, "timing")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	golden.Check(t, filepath.Join("testdata", "json", name+".json"), b.Bytes())
}

// TestJSONConvention runs every --json output of the commands built on
// the test factory and checks each against the convention and its golden
// file: the runs, their suite, comparison and gate, the tasks and suites,
// dataset verification and the model registry.
func TestJSONConvention(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	dirs := map[string]string{a: "$A", b: "$B", tmp: "$TMP"}
	mustRun := func(name string, want int, args ...string) string {
		t.Helper()
		code, out, errOut := run(t, args...)
		if code != want {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", name, code, want, out, errOut)
		}
		return out
	}
	jsonGolden(t, "run", mustRun("run", 0, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", a, "--json"), dirs)
	mustRun("run b", 0, "run", "--runtime", "fake", "--tasks", "alpha,beta", "--fake-model", "m9", "--out", b)
	jsonGolden(t, "tasks", mustRun("tasks", 0, "tasks", "--json"), dirs)
	jsonGolden(t, "compare", mustRun("compare", 0, "compare", a, b, "--json", "--resamples", "200"), dirs)
	policy := filepath.Join(tmp, "gate.yaml")
	if err := os.WriteFile(policy, []byte("defaults: {max_drop: 5, min_score: 90}\nrequire_tasks: [alpha, beta]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonGolden(t, "gate", mustRun("gate", ExitError, "gate", "--baseline", a, "--candidate", b, "--policy", policy, "--json"), dirs)
	jsonGolden(t, "suite-list", mustRun("suite --list", 0, "suite", "--list", "--json"), dirs)
	suiteFile := filepath.Join(tmp, "two.yaml")
	if err := os.WriteFile(suiteFile, []byte("name: two\ntasks:\n  - {task: alpha, reported: 40}\n  - {task: beta}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(tmp, "c")
	mustRun("run c", 0, "run", "--runtime", "fake", "--tasks", "alpha", "--out", c)
	jsonGolden(t, "suite", mustRun("suite", 0, "suite", c, "--suite", suiteFile, "--json"), map[string]string{c: "$C"})
	jsonGolden(t, "models-show", mustRun("models show", 0, "models", "show", "qwen3-0.6b-gguf", "--json"), dirs)
	jsonGolden(t, "", mustRun("models list", 0, "models", "list", "--json"), dirs)
	jsonGolden(t, "", mustRun("datasets list", 0, "datasets", "list", "--json"), dirs)
	data := filepath.Join(tmp, "data")
	os.MkdirAll(filepath.Join(data, "gsm8k"), 0o755)
	os.WriteFile(filepath.Join(data, "gsm8k", "test.jsonl"), []byte("{}\n"), 0o644)
	jsonGolden(t, "datasets-verify", mustRun("datasets verify", ExitError, "datasets", "verify", "gsm8k", "--data-dir", data, "--json"), map[string]string{data: "$DATA"})

	ios, _, out, _ := TestStreams()
	err := versionRun(&VersionOptions{IO: ios, JSON: true,
		BuildInfo: func() BuildInfo { return BuildInfo{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26.0"} },
		Engines: func() []Engine {
			return []Engine{{Name: "llama.cpp", Found: true, Version: "ggml-org/llama.cpp@b1", Where: "/lib"}, {Name: "mnn", Why: "not built in"}}
		}})
	if err != nil {
		t.Fatal(err)
	}
	jsonGolden(t, "version", out.String(), nil)
}

// TestJSONDocumentShape: every document is an object with schema_version
// first; a value that is not an object is refused.
func TestJSONDocumentShape(t *testing.T) {
	t.Parallel()
	b, err := jsonDocument(struct {
		Names []string `json:"names"`
	}{[]string{"a"}})
	if err != nil || !strings.HasPrefix(string(b), "{\n  \"schema_version\": 1,\n  \"names\"") {
		t.Errorf("document %s, %v", b, err)
	}
	if _, err := jsonDocument([]string{"a"}); err == nil {
		t.Error("a list was accepted as a document")
	}
	if b, _ := jsonDocument(struct{}{}); string(b) != "{\n  \"schema_version\": 1\n}\n" {
		t.Errorf("empty document %q", b)
	}
	for doc, ok := range map[string]bool{
		`{"schema_version": 1, "tasks": [{"name": "x", "ci_lo": 1}]}`: true,
		`{"schema_version": 1, "Tasks": []}`:                          false,
		`{"schema_version": 1, "files": {"gsm8k/test.jsonl": "x"}}`:   false,
		`{"tasks": []}`: false,
		`[]`:            false,
	} {
		if err := checkJSONConvention([]byte(doc)); (err == nil) != ok {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
