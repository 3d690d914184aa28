package taskfile

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

var lmevalData = flag.String("lmeval-data", "", "TestWriteLMEvalData writes the data root of the lm-eval goldens here")

// TestWriteLMEvalData writes the data root that testdata/lmeval/make_renders.py
// reads (see its header); it runs only with -lmeval-data.
func TestWriteLMEvalData(t *testing.T) {
	if *lmevalData == "" {
		t.Skip("run with -lmeval-data=DIR to write the data root of the lm-eval goldens")
	}
	writeLMEvalData(t, *lmevalData)
}

// writeLMEvalData copies the hand-written splits and converts the first
// documents of the shared datasets to the Hugging Face schema the task
// files expect, in <root>/<dataset_path>/[<dataset_name>/]<split>.jsonl.
func writeLMEvalData(t testing.TB, root string) {
	t.Helper()
	src := filepath.Join("testdata", "lmeval", "data")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(root, rel), raw)
	})
	if err != nil {
		t.Fatal(err)
	}
	shared := sharedtest.Datasets(t)
	var out []*orderedMap
	put := func(rel string) {
		t.Helper()
		var b strings.Builder
		for _, r := range out {
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := writeFile(filepath.Join(root, rel), []byte(b.String())); err != nil {
			t.Fatal(err)
		}
		out = nil
	}

	// ARC-Challenge: {"id","question","options":[{label,text}],"answer"}.
	for i, line := range readLines(t, filepath.Join(shared, "arc_challenge", "arc_challenge_test.jsonl"), 8) {
		var r struct {
			ID, Question, Answer string
			Options              []struct{ Label, Text string }
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("arc line %d: %v", i+1, err)
		}
		var text, label []string
		for _, o := range r.Options {
			text, label = append(text, o.Text), append(label, o.Label)
		}
		out = append(out, ordered("id", r.ID, "question", r.Question, "choices", ordered("text", text, "label", label), "answerKey", r.Answer))
	}
	put("allenai/ai2_arc/ARC-Challenge/test.jsonl")

	// GSM8K: already {"question","answer"}.
	for _, line := range readLines(t, filepath.Join(shared, "gsm8k", "test.jsonl"), 8) {
		var r struct{ Question, Answer string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, ordered("question", r.Question, "answer", r.Answer))
	}
	put("openai/gsm8k/main/test.jsonl")

	// MMLU: CSV question,choice0..3,answer (0-3) → cais/mmlu. Anatomy is
	// the renders' subject; the others, of unequal sizes, are the subjects
	// of the mmlu group in testdata/lmeval/tasks/mmlu/default (one or two
	// per category).
	for _, subj := range []struct {
		name string
		n    int
	}{{"anatomy", 8}, {"astronomy", 12}, {"business_ethics", 5}, {"econometrics", 10}, {"formal_logic", 7}} {
		for _, split := range []string{"test", "dev"} {
			f, err := os.Open(filepath.Join(shared, "mmlu", split, subj.name+"_"+split+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range rows[1:min(len(rows), subj.n+1)] {
				ans, _ := strconv.Atoi(row[5])
				out = append(out, ordered("question", row[0], "subject", subj.name, "choices", row[1:5], "answer", ans))
			}
			put("cais/mmlu/" + subj.name + "/" + split + ".jsonl")
		}
	}

	// BBH boolean_expressions: {"examples":[{"input","target"}]}.
	var bbh struct {
		Examples []struct{ Input, Target string }
	}
	raw, err := os.ReadFile(filepath.Join(shared, "bbh", "bbh", "boolean_expressions.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &bbh); err != nil {
		t.Fatal(err)
	}
	for _, e := range bbh.Examples[:8] {
		out = append(out, ordered("input", e.Input, "target", e.Target))
	}
	put("SaylorTwift/bbh/boolean_expressions/test.jsonl")

	// MGSM zh: TSV question<TAB>answer_number → juletxara/mgsm test rows.
	for _, line := range readLines(t, filepath.Join(shared, "mgsm", "mgsm_zh.tsv"), 6) {
		q, a, _ := strings.Cut(line, "\t")
		n, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil {
			t.Fatalf("mgsm answer %q: %v", a, err)
		}
		out = append(out, ordered("question", q, "answer", nil, "answer_number", n, "equation_solution", nil))
	}
	put("juletxara/mgsm/zh/test.jsonl")
}

// orderedMap marshals its keys in insertion order.
type orderedMap struct {
	keys []string
	vals map[string]any
}

func ordered(kv ...any) *orderedMap {
	m := &orderedMap{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		m.keys = append(m.keys, k)
		m.vals[k] = kv[i+1]
	}
	return m
}

func (m *orderedMap) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kj, _ := json.Marshal(k)
		vj, err := json.Marshal(m.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(kj)
		b.WriteString(": ")
		b.Write(vj)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func readLines(t testing.TB, path string, n int) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(l) != "" && len(out) < n {
			out = append(out, l)
		}
	}
	return out
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// golden is one testdata/lmeval/golden/<task>.json.
type golden struct {
	Task    string `json:"task"`
	YAML    string `json:"yaml"`
	Seed    int64  `json:"seed"`
	Limit   int    `json:"limit"`
	Renders []struct {
		NumFewshot int         `json:"num_fewshot"`
		Docs       []goldenDoc `json:"docs"`
	} `json:"renders"`
}

// goldenDoc is what lm-eval built for one document.
type goldenDoc struct {
	DocID    int             `json:"doc_id"`
	Target   json.RawMessage `json:"target"`
	Requests []struct {
		Context      string   `json:"context"`
		Continuation *string  `json:"continuation"`
		Until        []string `json:"until"`
	} `json:"requests"`
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestLMEvalRendersMatch renders real lm-eval task files with pocketeval
// and compares every request with what lm-eval built for the same data
// (testdata/lmeval/golden, made by make_renders.py): contexts and
// continuations byte for byte, stop sequences, and targets.
func TestLMEvalRendersMatch(t *testing.T) {
	root := t.TempDir()
	writeLMEvalData(t, root)
	files, err := filepath.Glob(filepath.Join("testdata", "lmeval", "golden", "*.json"))
	if err != nil || len(files) < 6 {
		t.Fatalf("want at least 6 goldens, found %d (%v)", len(files), err)
	}
	for _, gf := range files {
		raw, err := os.ReadFile(gf)
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatalf("%s: %v", gf, err)
		}
		t.Run(g.Task, func(t *testing.T) {
			parsed, err := Parse(filepath.Join("testdata", "lmeval", "tasks", filepath.FromSlash(g.YAML)))
			if err != nil {
				t.Fatal(err)
			}
			task := taskOf(parsed)
			evalstest.Test(t, parsed, evalstest.Options{DataDir: root, Samples: 4})
			if task.Info().Name != g.Task {
				t.Fatalf("name %q, lm-eval %q", task.Info().Name, g.Task)
			}
			for _, r := range g.Renders {
				d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: r.NumFewshot, Seed: g.Seed})
				if err != nil {
					t.Fatalf("%d-shot: %v", r.NumFewshot, err)
				}
				if len(r.Docs) != g.Limit {
					t.Fatalf("golden has %d documents, limit %d", len(r.Docs), g.Limit)
				}
				x := d.Extra.(*extra)
				pc := evals.PromptConfig{NumFewshot: r.NumFewshot}
				for _, doc := range r.Docs {
					s := d.Samples[doc.DocID]
					where := fmt.Sprintf("%d-shot doc %d", r.NumFewshot, doc.DocID)
					if got := targetJSON(x.gold[doc.DocID]); got != compactJSON(doc.Target) {
						t.Errorf("%s: target %s, lm-eval %s", where, got, doc.Target)
					}
					if task.cfg.OutputType == MultipleChoice {
						reqs, err := parsed.(evals.LoglikTask).LoglikRequests(d, s, pc)
						if err != nil {
							t.Fatalf("%s: %v", where, err)
						}
						if len(reqs) != len(doc.Requests) {
							t.Fatalf("%s: %d requests, lm-eval %d", where, len(reqs), len(doc.Requests))
						}
						for i, want := range doc.Requests {
							if reqs[i].Context != want.Context {
								t.Errorf("%s choice %d: context differs\n%s", where, i, diff(reqs[i].Context, want.Context))
							}
							if want.Continuation == nil || reqs[i].Continuation != *want.Continuation {
								t.Errorf("%s choice %d: continuation %q, lm-eval %v", where, i, reqs[i].Continuation, want.Continuation)
							}
						}
						continue
					}
					req, err := task.Prompt(d, s, pc)
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					want := doc.Requests[0]
					if req.Prompt != want.Context {
						t.Errorf("%s: prompt differs\n%s", where, diff(req.Prompt, want.Context))
					}
					if strings.Join(req.Gen.Stop, "\x00") != strings.Join(want.Until, "\x00") {
						t.Errorf("%s: stop %q, lm-eval until %q", where, req.Gen.Stop, want.Until)
					}
				}
			}
		})
	}
}

// targetJSON is a doc_to_target value as JSON, for comparison with the
// golden (tuples and lists alike).
func targetJSON(v pyvalue.Value) string {
	var walk func(pyvalue.Value) any
	walk = func(v pyvalue.Value) any {
		switch {
		case v.IsList():
			out := []any{}
			for _, it := range v.AsList().Items {
				out = append(out, walk(it))
			}
			return out
		case v.IsInt():
			return v.AsInt()
		case v.IsString():
			return v.AsString()
		case v.IsNone():
			return nil
		}
		return pyvalue.Repr(v)
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// diff shows where two renders part.
func diff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("first difference at byte %d:\n got …%q\nwant …%q", i, got[lo:min(len(got), i+60)], want[lo:min(len(want), i+60)])
}

// taskOf returns the Task inside a parsed task file.
func taskOf(t evals.Task) *Task {
	if c, ok := t.(*ChoiceTask); ok {
		return &c.Task
	}
	return t.(*Task)
}
