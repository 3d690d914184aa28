package taskfile

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/runtime"
)

// writeTask writes files (name → content) into a temporary directory and
// returns the path of the first one, "task.yaml" by convention.
func writeTask(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := writeFile(filepath.Join(dir, name), []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "task.yaml")
}

const minimalData = `{"q": "one", "a": "1"}
{"q": "two", "a": "2"}
`

// parseErr parses a task file that must fail and returns the *Error.
func parseErr(t *testing.T, task string) *Error {
	t.Helper()
	p := writeTask(t, map[string]string{"task.yaml": task, "d.jsonl": minimalData})
	_, err := Parse(p)
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("Parse: err = %v, want a *taskfile.Error", err)
	}
	return fe
}

func TestErrorsNameFileLineAndField(t *testing.T) {
	for _, c := range []struct {
		name, task  string
		line        int
		field, text string
		unsupported bool
	}{
		{"process_docs", "task: x\ndataset_path: ./d.jsonl\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\nprocess_docs: !function utils.process_docs\n", 6, "process_docs", "Python hook", true},
		{"unknown key", "task: x\ndataset_path: ./d.jsonl\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\nprompt_style: fancy\n", 6, "prompt_style", "unknown key", true},
		{"function in a filter", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nfilter_list:\n  - name: f\n    filter:\n      - function: !function my.filter\n", 8, "filter_list.", "!function", true},
		{"loglikelihood metric", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\noutput_type: loglikelihood\nmetric_list:\n  - metric: exact_match\n", 7, "metric_list[0].metric", "exact_match", true},
		{"loglikelihood aggregation", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\noutput_type: loglikelihood\nmetric_list:\n  - metric: perplexity\n    aggregation: mean\n", 8, "metric_list[0].aggregation", "mean", true},
		{"bad regex", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nfilter_list:\n  - name: f\n    filter:\n      - function: regex\n        regex_pattern: \"(?P<x\"\n", 8, "filter_list[0].filter[0].regex_pattern", "unterminated name", false},
		{"unknown filter", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nfilter_list:\n  - name: f\n    filter:\n      - function: majority_vote\n", 8, "filter_list[0].filter[0].function", "majority_vote", true},
		{"unknown metric", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nmetric_list:\n  - metric: bleu\n", 6, "metric_list[0].metric", "bleu", true},
		{"metric of the other type", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nmetric_list:\n  - metric: acc_norm\n", 6, "metric_list[0].metric", "multiple_choice", false},
		{"generation kwarg", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\ngeneration_kwargs:\n  until: [\"\\n\"]\n  top_k: 5\n", 7, "generation_kwargs.top_k", "top_k", true},
		{"template syntax", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: \"{{ q \"\ndoc_to_target: a\n", 3, "doc_to_text", "unclosed", false},
		{"repeats", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nrepeats: 4\n", 5, "repeats", "samples per task", true},
		{"group file", "group: g\ntask:\n  - a\n  - b\n", 3, "task", "group file", false},
		{"sampler", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nfewshot_config:\n  sampler: balanced\n", 6, "fewshot_config.sampler", "balanced", true},
		{"bad pin", "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\ndataset_sha256: abc\n", 5, "dataset_sha256", "sha256", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fe := parseErr(t, c.task)
			if fe.Line != c.line || !strings.HasPrefix(fe.Field, c.field) || !strings.Contains(fe.Error(), c.text) || !strings.HasSuffix(fe.File, "task.yaml") {
				t.Errorf("error %q (line %d, field %q), want line %d, field %q, text %q", fe, fe.Line, fe.Field, c.line, c.field, c.text)
			}
			if errors.Is(fe, ErrUnsupported) != c.unsupported {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", !c.unsupported, c.unsupported)
			}
		})
	}
}

func TestRealLMEvalFilesRefused(t *testing.T) {
	for file, want := range map[string]string{
		"hellaswag/hellaswag.yaml": `hellaswag.yaml:10: field "process_docs": !function utils.process_docs is a Python hook`,
		"winogrande/default.yaml":  `default.yaml:7: field "doc_to_text": !function preprocess_winogrande.doc_to_text is a Python hook`,
	} {
		_, err := Parse(filepath.Join("testdata", "lmeval", "tasks", file))
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: err = %v, want it to contain %q", file, err, want)
		}
	}
}

func TestIncludes(t *testing.T) {
	p := writeTask(t, map[string]string{
		"task.yaml":        "include: [base.yaml, over.yaml]\ntask: child\ndoc_to_text: \"Q: {{q}}\"\n",
		"base.yaml":        "dataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\ntest_split: test\ntask_list: [ignored]\n",
		"over.yaml":        "include: deeper/more.yaml\ntarget_delimiter: \"=\"\n",
		"deeper/more.yaml": "description: \"From deeper.\\n\"\n",
		"d.jsonl":          minimalData,
	})
	task, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	c := taskOf(task).cfg
	if c.Name != "child" || c.DocToText.str != "Q: {{q}}" || c.TargetDelimiter != "=" || c.Description != "From deeper.\n" {
		t.Errorf("merged config: name %q text %q delim %q desc %q", c.Name, c.DocToText.str, c.TargetDelimiter, c.Description)
	}
	cyc := writeTask(t, map[string]string{"task.yaml": "include: task.yaml\ntask: x\n"})
	if _, err := Parse(cyc); err == nil || !strings.Contains(err.Error(), "include cycle") {
		t.Errorf("include cycle: err = %v", err)
	}
}

// TestPyYAMLScalars checks that unquoted scalars get PyYAML's types.
func TestPyYAMLScalars(t *testing.T) {
	var doc yaml.Node
	src := "[yes, No, on, 'yes', 1e3, 1.5, 012, 0x1F, ~, null, '', 3, -7, .inf, text]"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	v, err := toValue(doc.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	want := "[True, False, True, 'yes', '1e3', 1.5, 10, 31, None, None, '', 3, -7, inf, 'text']"
	if got := reprOf(v); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestFiltersMatchLMEval(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "lmeval", "filters.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Pipeline string `json:"pipeline"`
		Steps    [][2]any
		Response string `json:"response"`
		Filtered string `json:"filtered"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	built := map[string]FilterSet{}
	for _, c := range cases {
		fs, ok := built[c.Pipeline]
		if !ok {
			var steps []map[string]any
			for _, s := range c.Steps {
				step := map[string]any{"function": s[0]}
				if args, ok := s[1].(map[string]any); ok {
					for k, v := range args {
						step[k] = v
					}
				}
				steps = append(steps, step)
			}
			y, err := yaml.Marshal(map[string]any{"filter_list": []any{map[string]any{"name": c.Pipeline, "filter": steps}}})
			if err != nil {
				t.Fatal(err)
			}
			p := writeTask(t, map[string]string{"task.yaml": "task: x\ndataset_path: ./d.jsonl\ndoc_to_text: q\ndoc_to_target: a\n" + string(y)})
			task, err := Parse(p)
			if err != nil {
				t.Fatalf("%s: %v", c.Pipeline, err)
			}
			fs = taskOf(task).cfg.Filters[0]
			built[c.Pipeline] = fs
		}
		if got, _, _ := fs.Apply(c.Response); got != c.Filtered {
			t.Errorf("%s(%q) = %q, lm-eval %q", c.Pipeline, c.Response, got, c.Filtered)
		}
	}
	if len(built) < 8 {
		t.Errorf("%d pipelines checked", len(built))
	}
}

func TestDataFormatsAndTypes(t *testing.T) {
	p := writeTask(t, map[string]string{
		"task.yaml": `task: formats
dataset_path: csv
dataset_kwargs:
  data_files:
    test: t.tsv
    train: [a.json, b.jsonl]
test_split: test
fewshot_split: train
num_fewshot: 2
fewshot_config: {sampler: first_n, doc_to_text: "{{q}}|{{n}}|{{f}}|{{extra}}"}
doc_to_text: "{{q}}|{{n}}|{{f}}|{{b}}|{{s}}"
doc_to_target: "{{n}}"
`,
		"t.tsv":   "q\tn\tf\tb\ts\nfirst\t1\t1.5\tTrue\tNA\nsecond\t2\t\tFalse\tx, y\n",
		"a.json":  `[{"q": "j1", "n": 1, "f": 2}]`,
		"b.jsonl": `{"q": "j2", "n": 2.5, "extra": true}` + "\n",
	})
	task, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := task.Load(context.Background(), evals.LoadConfig{NumFewshot: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	x := d.Extra.(*extra)
	// pandas typing: ints, floats with NaN for a missing cell, booleans,
	// strings with None for "NA".
	if got := x.contexts[0]; !strings.HasSuffix(got, "first|1|1.5|True|None") {
		t.Errorf("sample 0 = %q", got)
	}
	if got := x.contexts[1]; !strings.HasSuffix(got, "second|2|nan|False|x, y") {
		t.Errorf("sample 1 = %q", got)
	}
	// The two few-shot files are one split; columns are unified (n holds a
	// float, so 1 becomes 1.0; missing fields are None).
	if got := x.user[0]; !strings.HasPrefix(got, "j1|1.0|2|None 1.0\n\nj2|2.5|None|True 2.5\n\n") {
		t.Errorf("few-shot examples = %q", got)
	}
	if len(d.Files) != 3 {
		t.Errorf("files %v, want 3 recorded", d.Files)
	}
}

func TestPinsAndMissingData(t *testing.T) {
	data := minimalData
	good := evals.Digest([]byte(data))
	base := "task: pins\ndataset_path: ./d.jsonl\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\n"
	load := func(task string, files map[string]string, dataDir string) error {
		files["task.yaml"] = task
		tk, err := Parse(writeTask(t, files))
		if err != nil {
			return err
		}
		_, err = tk.Load(context.Background(), evals.LoadConfig{NumFewshot: -1, DataDir: dataDir})
		return err
	}
	if err := load(base+"dataset_sha256: "+good+"\n", map[string]string{"d.jsonl": data}, ""); err != nil {
		t.Errorf("matching pin: %v", err)
	}
	err := load(base+"dataset_sha256: "+strings.Repeat("0", 64)+"\n", map[string]string{"d.jsonl": data}, "")
	if err == nil || !strings.Contains(err.Error(), "task.yaml:6: field \"dataset_sha256\"") {
		t.Errorf("wrong pin: err = %v", err)
	}
	err = load(base, map[string]string{"d.jsonl": data, "SHA256SUMS": strings.Repeat("1", 64) + "  d.jsonl\n"}, "")
	if err == nil || !strings.Contains(err.Error(), "SHA256SUMS:1") {
		t.Errorf("SHA256SUMS mismatch: err = %v", err)
	}
	hub := "task: hub\ndataset_path: org/set\ndataset_name: cfg\ntest_split: test\ndoc_to_text: q\ndoc_to_target: a\n"
	err = load(hub, map[string]string{}, t.TempDir())
	var me *evals.MissingDataError
	if !errors.As(err, &me) || me.Task != "hub" || !strings.Contains(me.Path, filepath.Join("org", "set", "cfg", "test.jsonl")) {
		t.Errorf("missing hub data: err = %v", err)
	}
	err = load(base, map[string]string{"d.jsonl": "{\"q\": \"x\", \"a\": \"y\"}\nnot json\n"}, "")
	var de *evals.DataError
	if !errors.As(err, &de) || de.Line != 2 {
		t.Errorf("malformed record: err = %v, want a DataError at line 2", err)
	}
}

func TestNumFewshotZeroInFileWins(t *testing.T) {
	p := writeTask(t, map[string]string{
		"task.yaml": "task: z\ndataset_path: ./d.jsonl\ntest_split: test\nfewshot_split: test\ndoc_to_text: q\ndoc_to_target: a\nnum_fewshot: 0\n",
		"d.jsonl":   minimalData,
	})
	task, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := task.Load(context.Background(), evals.LoadConfig{NumFewshot: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d.Extra.(*extra).k != 0 || len(d.Warnings) != 1 {
		t.Errorf("k = %d, warnings %q; want 0 and one warning", d.Extra.(*extra).k, d.Warnings)
	}
}

// TestScoreAndAggregate drives the app metrics through Score and
// Aggregate.
func TestScoreAndAggregate(t *testing.T) {
	p := writeTask(t, map[string]string{
		"task.yaml": `task: app
dataset_path: ./d.jsonl
test_split: test
doc_to_text: "{{q}}"
doc_to_target: "{{label}}"
doc_to_choice: [yes, "no"]
metric_list:
  - metric: label_accuracy
  - metric: macro_f1
  - metric: exact_match
    ignore_case: true
`,
		"d.jsonl": `{"q": "a", "label": "True"}` + "\n" + `{"q": "b", "label": "False"}` + "\n",
	})
	task, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	// An unquoted yes in YAML is True for PyYAML, so the label set is
	// [True, 'no'] and the first label prints as "True".
	d, err := task.Load(context.Background(), evals.LoadConfig{NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	var res []evals.SampleResult
	for i, resp := range []string{"True.", "Maybe"} {
		sc, err := task.Score(context.Background(), d.Samples[i], evals.Output{Text: resp})
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, evals.SampleResult{Sample: d.Samples[i], Score: sc})
	}
	if res[0].Score.Values["label_accuracy"] != 1 || res[1].Score.Values["label_accuracy"] != 0 || res[0].Score.Values["exact_match"] != 0 {
		t.Errorf("scores %v, %v", res[0].Score.Values, res[1].Score.Values)
	}
	// "Maybe" names no label: an extraction failure, as the run's
	// extraction-failure rate counts it; "True." names one.
	if res[0].Score.ExtractionFailed || res[0].Score.Extracted != "True" || !res[1].Score.ExtractionFailed || res[1].Score.Extracted != "" {
		t.Errorf("extraction: %q failed=%v, %q failed=%v", res[0].Score.Extracted, res[0].Score.ExtractionFailed, res[1].Score.Extracted, res[1].Score.ExtractionFailed)
	}
	agg := task.(evals.Aggregator).Aggregate(res)
	// Gold True, False; predicted True, none: F1(True) = 2/3·... precision
	// 1, recall 1 → 1; F1(False) = 0 → macro 0.5.
	if agg.Metrics["macro_f1"] != 0.5 || agg.Breakdown["confusion:False"]["(none)"] != 1 {
		t.Errorf("aggregate %+v", agg)
	}
}

func TestRankingScores(t *testing.T) {
	p := writeTask(t, map[string]string{
		"task.yaml": `task: rank
dataset_path: ./d.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: "{{q}}"
doc_to_choice: c
doc_to_target: g
metric_list: [{metric: acc}, {metric: mrr}, {metric: brier_score}, {metric: ece}]
`,
		"d.jsonl": `{"q": "a", "c": ["x", "yy"], "g": 1}` + "\n",
	})
	parsed, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	task, err := parsed.(*ChoiceTask).WithMode(ModeLoglik)
	if err != nil {
		t.Fatal(err)
	}
	d, err := task.Load(context.Background(), evals.LoadConfig{NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := task.Score(context.Background(), d.Samples[0], evals.Output{Loglik: []runtime.LoglikResult{{LogProb: -1}, {LogProb: -2}}})
	if err != nil {
		t.Fatal(err)
	}
	p0 := 1 / (1 + math.Exp(-1)) // softmax probability of candidate 0
	wantBrier := 2 * p0 * p0     // (p0 − 0)² + (p1 − 1)² with p1 = 1 − p0
	if sc.Values["acc"] != 0 || sc.Values["mrr"] != 0.5 || math.Abs(sc.Values["brier_score"]-wantBrier) > 1e-12 {
		t.Errorf("scores %v, want acc 0, mrr 0.5, brier %v", sc.Values, wantBrier)
	}
	agg := task.(evals.Aggregator).Aggregate([]evals.SampleResult{{Sample: d.Samples[0], Score: sc}})
	if math.Abs(agg.Metrics["ece"]-p0) > 1e-12 {
		t.Errorf("ece = %v, want %v (one wrong answer at confidence p0)", agg.Metrics["ece"], p0)
	}
}

func reprOf(v pyvalue.Value) string { return pyvalue.Repr(v) }

func TestIsPath(t *testing.T) {
	for name, want := range map[string]bool{
		"gsm8k": false, "mgsm_zh": false, "my_task.yaml": true, "t.yml": true, "./tasks": true, "examples/tasks": true, "/abs/dir": true,
	} {
		if got := IsPath(name); got != want {
			t.Errorf("IsPath(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestRenderErrorsNameBothFiles: a template that fails on a document names
// the data file and line, and the task file and line of the template.
func TestRenderErrorsNameBothFiles(t *testing.T) {
	p := writeTask(t, map[string]string{
		"task.yaml": "task: r\ndataset_path: ./d.jsonl\ntest_split: test\ndoc_to_text: \"{{ q }} {{ qq }}\"\ndoc_to_target: a\n",
		"d.jsonl":   minimalData,
	})
	task, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = task.Load(context.Background(), evals.LoadConfig{NumFewshot: -1})
	var de *evals.DataError
	if !errors.As(err, &de) || de.Line != 1 || !strings.HasSuffix(de.Path, "d.jsonl") ||
		!strings.Contains(err.Error(), "task.yaml:4") || !strings.Contains(err.Error(), "{{ qq }}") {
		t.Fatalf("err = %v", err)
	}
}
