package taskfile

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/runtime"
)

// wikitextGoldens is testdata/wikitext/goldens.json (make_goldens.py).
type wikitextGoldens struct {
	Commit, SHA256 string
	Cases          []struct {
		Page, Target string
		Words, Bytes int
	}
	Docs []struct {
		Text          string
		Loglikelihood float64
		Words, Bytes  int
	}
	Metrics map[string]float64
}

func readWikitextGoldens(t *testing.T) wikitextGoldens {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "wikitext", "goldens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g wikitextGoldens
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	hex := regexp.MustCompile(`^[0-9a-f]+$`)
	if len(g.Commit) != 40 || len(g.SHA256) != 64 || !hex.MatchString(g.Commit+g.SHA256) || len(g.Cases) < 30 || len(g.Docs) < 3 {
		t.Fatalf("goldens: commit %q sha256 %q, %d cases, %d documents", g.Commit, g.SHA256, len(g.Cases), len(g.Docs))
	}
	return g
}

// The native wikitext hooks equal lm-eval's Python preprocess_wikitext on
// every rule of the detokenizer, Python's whitespace, unicode and empty
// pages.
func TestWikitextHooksMatchPython(t *testing.T) {
	g := readWikitextGoldens(t)
	det, counts := hooks["preprocess_wikitext.wikitext_detokenizer"].doc, hooks["preprocess_wikitext.process_results"].counts
	changed := 0
	for _, c := range g.Cases {
		doc := pyvalue.NewDict()
		doc.AsDict().Set("page", pyvalue.NewString(c.Page))
		v, err := det(doc)
		if err != nil || v.AsString() != c.Target {
			t.Errorf("detokenize %q: %q, %v; Python %q", c.Page, v.AsString(), err, c.Target)
		}
		if c.Target != c.Page {
			changed++
		}
		w, b, err := counts(doc)
		if err != nil || w != c.Words || b != c.Bytes {
			t.Errorf("counts of %q: %d words, %d bytes, %v; Python %d, %d", c.Page, w, b, err, c.Words, c.Bytes)
		}
	}
	if changed < len(g.Cases)/2 {
		t.Errorf("only %d of %d cases are changed by the detokenizer", changed, len(g.Cases))
	}
	doc := pyvalue.NewDict()
	doc.AsDict().Set("text", pyvalue.NewString("x"))
	if _, err := det(doc); err == nil || !strings.Contains(err.Error(), `"page"`) {
		t.Errorf("a document without page: %v", err)
	}
}

// lm-eval's wikitext.yaml runs unchanged on a wikitext-shaped test split:
// its requests, word and byte counts and metrics equal lm-eval's.
func TestWikitextTaskFile(t *testing.T) {
	g := readWikitextGoldens(t)
	root := t.TempDir()
	src := filepath.Join("testdata", "lmeval", "data", "EleutherAI", "wikitext_document_level", "wikitext-2-raw-v1", "test.jsonl")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(root, "EleutherAI", "wikitext_document_level", "wikitext-2-raw-v1", "test.jsonl"), raw); err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(filepath.Join("testdata", "lmeval", "tasks", "wikitext", "wikitext.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	task, ok := parsed.(*LoglikTask)
	if !ok || !task.Rolling() {
		t.Fatalf("Parse gave %T", parsed)
	}
	d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Samples) != len(g.Docs) {
		t.Fatalf("%d documents, lm-eval %d", len(d.Samples), len(g.Docs))
	}
	var results []evals.SampleResult
	for i, want := range g.Docs {
		s := d.Samples[i]
		reqs, err := task.LoglikRequests(d, s, evals.PromptConfig{})
		if err != nil || len(reqs) != 1 || reqs[0].Context != "" || reqs[0].Continuation != want.Text {
			t.Fatalf("doc %d: %+v %v; lm-eval text %q", i, reqs, err, want.Text)
		}
		sc, err := task.Score(context.Background(), s, evals.Output{Loglik: []runtime.LoglikResult{{LogProb: want.Loglikelihood}}})
		if err != nil {
			t.Fatal(err)
		}
		if sc.Details["words"] != want.Words || sc.Details["bytes"] != want.Bytes {
			t.Errorf("doc %d: %v words, %v bytes; lm-eval %d, %d", i, sc.Details["words"], sc.Details["bytes"], want.Words, want.Bytes)
		}
		results = append(results, evals.SampleResult{Score: sc})
	}
	agg := task.Aggregate(results)
	for k, want := range g.Metrics {
		// Go's math.Exp and C's exp may differ in the last bit.
		if got := agg.Metrics[k]; math.Abs(got-want) > 4e-16*math.Abs(want) {
			t.Errorf("%s = %v, lm-eval %v", k, got, want)
		}
	}
	if len(agg.Metrics) != 3 {
		t.Errorf("metrics %v", agg.Metrics)
	}
}

// Other `!function` hooks, and the native ones under another key or
// output type, are refused with file, line and key.
func TestNativeHooksRefused(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct{ body, want string }{
		"other.yaml": {"task: x\ndataset_path: p\noutput_type: loglikelihood_rolling\ntest_split: test\ndoc_to_text: \"\"\ndoc_to_target: !function preprocess_wikitext.other\n",
			`other.yaml:6: field "doc_to_target": !function preprocess_wikitext.other is a Python hook`},
		"key.yaml": {"task: x\ndataset_path: p\noutput_type: loglikelihood_rolling\ntest_split: test\ndoc_to_text: !function preprocess_wikitext.wikitext_detokenizer\ndoc_to_target: page\n",
			`key.yaml:5: field "doc_to_text": !function preprocess_wikitext.wikitext_detokenizer is a Python hook`},
		"type.yaml": {"task: x\ndataset_path: p\noutput_type: loglikelihood\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\nprocess_results: !function preprocess_wikitext.process_results\n",
			`type.yaml:7: field "process_results": !function preprocess_wikitext.process_results scores loglikelihood_rolling tasks`},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
