package taskfile

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/jinja"
)

// FuzzTaskFileTemplates puts a template in a task file's description,
// doc_to_text and doc_to_target and a document in its data file, and runs
// them through the loader and the prompt builder under small limits. Any
// input must end in an error or prompts, never a crash, and cost at most a
// fixed multiple of its size plus the limits, counted in bytes allocated
// (not in time, which a loaded machine stretches): a string, list or
// padding built before its size is checked, or work the limits do not
// count, would exceed it.
func FuzzTaskFileTemplates(f *testing.F) {
	doc := `{"q": "What is 2+2?", "a": "4", "choices": ["3", "4"], "n": 1.5, "none": null}`
	for _, s := range []string{
		"Q: {{ q }}\nA:",
		"{% for i in range(10**9) %}{% endfor %}{{ q }}",
		"{{ 'a' * 10**9 }}",
		"{% set ns = namespace(s=q) %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
		"{% set ns = namespace(s=choices) %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}",
		"{{ q|regex_replace('', q * 100) }}{{ q.center(10**8) }}{{ choices|join(q * 1000) }}",
		"{% for c in choices %}{{ loop.index }}. {{ c }}\n{% endfor %}{{ n }} {{ none }} {{ missing }}",
		"{{ q ",
	} {
		f.Add(s, doc)
	}
	f.Fuzz(func(t *testing.T, tmpl, doc string) {
		if !utf8.ValidString(tmpl) || len(tmpl) > 1<<12 || len(doc) > 1<<12 {
			return
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &fields) != nil {
			return
		}
		var line bytes.Buffer
		if json.Compact(&line, []byte(doc)) != nil {
			return
		}
		lim := jinja.Limits{MaxRange: 1000, MaxOutput: 1 << 16, MaxSteps: 20_000, MaxBuilt: 1 << 22}

		dir := t.TempDir()
		q, _ := json.Marshal(tmpl)
		task := "task: f\ndataset_path: ./d.jsonl\ntest_split: test\ndescription: " + string(q) +
			"\ndoc_to_text: " + string(q) + "\ndoc_to_target: " + string(q) + "\n"
		path := filepath.Join(dir, "task.yaml")
		if err := os.WriteFile(path, []byte(task), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "d.jsonl"), append(line.Bytes(), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		parsed, err := parse(path, lim)
		if err != nil {
			if !strings.Contains(err.Error(), "task.yaml") {
				t.Fatalf("error does not name the task file: %v", err)
			}
			return
		}
		d, err := parsed.Load(context.Background(), evals.LoadConfig{NumFewshot: -1})
		if err == nil {
			for _, s := range d.Samples {
				parsed.Prompt(d, s, evals.PromptConfig{NumFewshot: -1})
			}
		}
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		bound := uint64(64<<20) + 4096*uint64(len(tmpl)+len(doc))
		if alloc > bound {
			t.Fatalf("a %d-byte template over a %d-byte document allocated %d bytes (bound %d): super-linear cost\n%q\n%s", len(tmpl), len(doc), alloc, bound, tmpl, doc)
		}
	})
}
