package lmtemplate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/jinja"
)

var corpusFrom = flag.String("corpus-from", "", "TestCorpus first rebuilds testdata/corpus.jsonl from the records in this directory")

// corpusCase is one render of testdata/corpus.jsonl: a template of a task
// file in the repository, a document it is rendered over, and the output
// (or, for a template that fails, the error).
type corpusCase struct {
	Template string          `json:"template"`
	Doc      json.RawMessage `json:"doc"`
	Output   *string         `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// TestCorpus renders every template of every task file the repository's
// tests use (evals/taskfile's testdata, lm-eval's task files and their
// data, the examples, the command's tests) over the documents the tests
// render it with, and requires the outputs recorded in
// testdata/corpus.jsonl byte for byte, and failures where they failed.
//
// The corpus is rebuilt by running the tests with renders recorded:
//
//	d=$(mktemp -d); POCKETEVAL_TEMPLATE_CORPUS=$d go test -tags templatecorpus -count=1 \
//	    ./evals/taskfile/... ./cmd/pocketeval/internal/cli/...
//	go test ./evals/taskfile/internal/lmtemplate -run TestCorpus -corpus-from $d
//
// The corpus was recorded with the former engine (github.com/ardanlabs/jinja
// behind a rewriter) and then given jinja2's verdict: testdata/check_corpus.py
// renders every case with jinja2 configured as lm-eval configures it and,
// with --write, records what jinja2 renders. Of the 862 cases, the former
// engine matched jinja2 in 831; in the others (StrictUndefined on a missing
// field in a condition, loop or filter, list comprehensions jinja2 refuses,
// floats joined by ~) the corpus holds jinja2's outputs and failures. Cases
// a limit stops (range(10**9)) are left out: lm-eval has no sandbox.
func TestCorpus(t *testing.T) {
	path := filepath.Join("testdata", "corpus.jsonl")
	if *corpusFrom != "" {
		writeCorpus(t, *corpusFrom, path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := readCorpus(t, raw)
	if len(cases) < 100 {
		t.Fatalf("%s: %d cases, want the whole corpus", path, len(cases))
	}
	compiled := map[string]*Template{}
	for i, c := range cases {
		tm := compiled[c.Template]
		if tm == nil {
			if tm, err = Compile(c.Template, jinja.DefaultLimits); err != nil {
				if c.Output != nil {
					t.Errorf("case %d: Compile(%q): %v", i+1, c.Template, err)
				}
				continue
			}
			compiled[c.Template] = tm
		}
		got, err := tm.Render(docOf(t, c.Doc))
		switch {
		case c.Output != nil && err != nil:
			t.Errorf("case %d, template %q: %v; want %q", i+1, c.Template, err, *c.Output)
		case c.Output != nil && got != *c.Output:
			t.Errorf("case %d, template %q:\n got %q\nwant %q", i+1, c.Template, got, *c.Output)
		case c.Output == nil && err == nil:
			t.Errorf("case %d, template %q: rendered %q; want an error (%s)", i+1, c.Template, got, c.Error)
		}
	}
}

func readCorpus(t *testing.T, raw []byte) []corpusCase {
	t.Helper()
	var cases []corpusCase
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// writeCorpus merges the records in dir into one sorted file without
// repeats.
func writeCorpus(t *testing.T, dir, path string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in %s (%v)", dir, err)
	}
	seen := map[string]corpusCase{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range readCorpus(t, raw) {
			if c.Error != "" {
				c.Error = "error" // the engine's wording is not the corpus's subject
			}
			seen[c.Template+"\x00"+string(c.Doc)] = c
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		line, err := json.Marshal(seen[k])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
