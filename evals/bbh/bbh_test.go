package bbh

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

func load(t *testing.T) *evals.Dataset {
	t.Helper()
	d, err := New().Load(context.Background(), evals.LoadConfig{DataDir: sharedtest.Datasets(t), NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoad(t *testing.T) {
	t.Parallel()
	d := load(t)
	if len(d.Warnings) > 0 {
		t.Errorf("warnings: %v", d.Warnings)
	}
	if len(d.Samples) != 6511 {
		t.Errorf("samples = %d, want 6511", len(d.Samples))
	}
	per := map[string]int{}
	for _, s := range d.Samples {
		per[s.Group]++
	}
	if len(per) != 27 {
		t.Errorf("tasks = %d, want 27", len(per))
	}
	for task, want := range map[string]int{"causal_judgement": 187, "penguins_in_a_table": 146, "snarks": 178, "word_sorting": 250} {
		if per[task] != want {
			t.Errorf("%s: %d examples, want %d", task, per[task], want)
		}
	}
	ex := d.Extra.(*extra)
	for task, p := range ex.prompts {
		if len(p.shots) != 3 {
			t.Errorf("%s: %d exemplars, want 3", task, len(p.shots))
		}
		if strings.Contains(p.text, "canary") || strings.Contains(p.text, "BENCHMARK DATA") {
			t.Errorf("%s: canary header not stripped", task)
		}
		// The parsed pieces reassemble into the official text.
		var b strings.Builder
		b.WriteString(p.description)
		for _, sh := range p.shots {
			b.WriteString("\n\nQ: " + sh.question + "\nA: " + sh.answer)
		}
		if got := b.String(); got != strings.TrimRight(p.text, "\n") {
			t.Errorf("%s: exemplars do not reassemble into the prompt file", task)
		}
		if !strings.HasPrefix(p.shots[0].answer, cotCue) {
			t.Errorf("%s: exemplar answer does not start with the CoT cue", task)
		}
	}
	if d.Samples[0].ID != "boolean_expressions/0" || d.Samples[0].Target != "False" {
		t.Errorf("first sample = %+v", d.Samples[0])
	}
}

func TestPromptRaw(t *testing.T) {
	t.Parallel()
	d := load(t)
	s := d.Samples[0]
	req, err := New().Prompt(d, s, evals.PromptConfig{NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	if req.IsChat() {
		t.Fatal("raw prompt rendered as chat")
	}
	if !strings.HasPrefix(req.Prompt, "Evaluate the result of a random Boolean expression.\n\nQ: not ( ( not not True ) ) is\nA: Let's think step by step.\n") {
		t.Errorf("prompt start: %q", req.Prompt[:120])
	}
	if want := "\n\nQ: " + s.Input + "\nA: Let's think step by step."; !strings.HasSuffix(req.Prompt, want) {
		t.Errorf("prompt end: %q", req.Prompt[len(req.Prompt)-120:])
	}
	if len(req.Gen.Stop) != 1 || req.Gen.Stop[0] != "\n\nQ:" || req.Gen.MaxTokens != defaultMaxTokens {
		t.Errorf("gen = %+v", req.Gen)
	}
}

func TestPromptChat(t *testing.T) {
	t.Parallel()
	d := load(t)
	s := d.Samples[0]
	req, err := New().Prompt(d, s, evals.PromptConfig{NumFewshot: -1, Chat: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 7 {
		t.Fatalf("messages = %d, want 3 exemplar pairs + question", len(req.Messages))
	}
	for i, m := range req.Messages {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			t.Errorf("message %d role %s, want %s", i, m.Role, want)
		}
	}
	if !strings.HasPrefix(req.Messages[0].Content, "Evaluate the result of a random Boolean expression.\n\nQ: ") {
		t.Errorf("first turn: %q", req.Messages[0].Content)
	}
	if !strings.HasSuffix(req.Messages[1].Content, "So the answer is False.") {
		t.Errorf("first answer: %q", req.Messages[1].Content)
	}
	if req.Messages[6].Content != "Q: "+s.Input {
		t.Errorf("last turn: %q", req.Messages[6].Content)
	}
	zero, err := New().Prompt(d, s, evals.PromptConfig{NumFewshot: 0, Chat: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(zero.Messages) != 1 || !strings.Contains(zero.Messages[0].Content, "So the answer is") {
		t.Errorf("zero-shot chat = %+v", zero.Messages)
	}
}

func TestExtractAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "Z = False. So the answer is False.", "False", true},
		{"option", "So the answer is (B).", "(B)", true},
		{"free form keeps inner periods", "So the answer is 3.5.", "3.5", true},
		{"first occurrence wins", "So the answer is (A).\nWait, the answer is (C).", "(A)", true},
		{"runaway continuation is cut", "So the answer is Yes.\n\nQ: Is it?\nA: Let's think step by step. So the answer is No.", "Yes", true},
		{"answer only in the continuation", "I am not sure.\n\nQ: next\nA: So the answer is No.", "", false},
		{"rest of line only", "the answer is valid\nmore text", "valid", true},
		{"case sensitive like the official code", "The answer is (A).", "", false},
		{"missing", "I cannot tell.", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ExtractAnswer(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ExtractAnswer(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	mcSample := evals.Sample{ID: "date_understanding/0", Group: "date_understanding", Target: "(B)",
		Input: "Today is Christmas Eve of 1937. What is the date tomorrow in MM/DD/YYYY?\nOptions:\n(A) 12/11/1937\n(B) 12/25/1937\n(C) 01/04/1938"}
	free := evals.Sample{ID: "object_counting/0", Group: "object_counting", Target: "6", Input: "How many?"}
	tests := []struct {
		name        string
		s           evals.Sample
		text        string
		exact, flex float64
		fail        bool
	}{
		{"exact option", mcSample, "Tomorrow is 12/25/1937. So the answer is (B).", 1, 1, false},
		{"bare letter only flexible", mcSample, "So the answer is B.", 0, 1, false},
		{"option text only flexible", mcSample, "So the answer is 12/25/1937.", 0, 1, false},
		{"capitalised only flexible", mcSample, "The answer is (B).", 0, 1, true},
		{"no statement, last option flexible", mcSample, "Tomorrow is (B)", 0, 1, true},
		{"wrong option", mcSample, "So the answer is (A).", 0, 0, false},
		{"answer only", free, "6", 0, 1, true},
		{"answer only option", mcSample, " (B)\n\nQ: next question", 0, 1, true},
		{"free form exact", free, "So the answer is 6.", 1, 1, false},
		{"free form markdown flexible", free, "So the answer is **6**.", 0, 1, false},
		{"free form wrong", free, "So the answer is 7.", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := New().Score(context.Background(), tt.s, evals.Output{Text: tt.text})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Values[MetricExact] != tt.exact || sc.Values[MetricFlexible] != tt.flex || sc.ExtractionFailed != tt.fail {
				t.Errorf("got %v failed=%v, want exact %v flex %v failed=%v", sc.Values, sc.ExtractionFailed, tt.exact, tt.flex, tt.fail)
			}
		})
	}
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	res := func(task string, v float64) evals.SampleResult {
		return evals.SampleResult{Sample: evals.Sample{Group: task}, Score: evals.Score{Values: map[string]float64{MetricExact: v, MetricFlexible: v}}}
	}
	// Task a: 1/1, task b: 1/3 → macro 2/3, micro 2/4.
	agg := New().Aggregate([]evals.SampleResult{res("a", 1), res("b", 1), res("b", 0), res("b", 0)})
	if got := agg.Metrics[MetricExact+"_macro"]; math.Abs(got-2.0/3) > 1e-12 {
		t.Errorf("macro = %v", got)
	}
	if got := agg.Metrics[MetricExact+"_micro"]; got != 0.5 {
		t.Errorf("micro = %v", got)
	}
	if agg.Breakdown["b"]["n"] != 3 {
		t.Errorf("breakdown = %v", agg.Breakdown)
	}
	if len(agg.Notes) < 3 {
		t.Errorf("expected a partial-run note, got %v", agg.Notes)
	}
}

func TestWithMode(t *testing.T) {
	t.Parallel()
	if _, err := New().WithMode("gen"); err != nil {
		t.Error(err)
	}
	if _, err := New().WithMode("loglik"); err == nil {
		t.Error("loglik mode accepted")
	}
}

// TestOfficialOutputs is the held-out check: the published code-davinci-002
// CoT outputs of the official repository (suzgunmirac/BIG-Bench-Hard,
// code-davinci-002-outputs/code-davinci-002-cot/) scored by this package
// must reproduce the official per-task accuracy of every task. The outputs
// are 25 MB and not vendored; point POCKETEVAL_BBH_OUTPUTS at that
// directory to run it.
func TestOfficialOutputs(t *testing.T) {
	dir := os.Getenv("POCKETEVAL_BBH_OUTPUTS")
	if dir == "" {
		t.Skip("POCKETEVAL_BBH_OUTPUTS not set (directory code-davinci-002-outputs/code-davinci-002-cot of suzgunmirac/BIG-Bench-Hard)")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*_few_shot_template_0-255000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 27 {
		t.Fatalf("%d output files in %s, want 27", len(files), dir)
	}
	d := load(t)
	byID := map[string]evals.Sample{}
	for _, s := range d.Samples {
		byID[s.ID] = s
	}
	mismatched := 0
	for _, f := range files {
		task := strings.TrimSuffix(filepath.Base(f), "_few_shot_template_0-255000.json")
		var outs struct {
			Outputs []struct {
				Input, Prediction, Target string
			} `json:"outputs"`
		}
		readJSON(t, f, &outs)
		var metrics struct {
			Accuracy float64 `json:"accuracy"`
		}
		readJSON(t, strings.TrimSuffix(f, ".json")+"_eval_metrics.jsonl", &metrics)
		correct := 0
		for i, o := range outs.Outputs {
			s := byID[task+"/"+strconv.Itoa(i)]
			// The rendered raw prompt is the official input, except where
			// the released dataset record differs from the one that was
			// run (one snarks example).
			if strings.Contains(o.Input, "\n\nQ: "+s.Input+"\nA: ") {
				req, err := New().Prompt(d, s, evals.PromptConfig{NumFewshot: -1})
				if err != nil {
					t.Fatal(err)
				}
				if req.Prompt != o.Input {
					t.Errorf("%s: prompt differs from the official input", s.ID)
				}
			} else {
				mismatched++
			}
			s.Target = o.Target // the official target of that output
			sc, err := New().Score(context.Background(), s, evals.Output{Text: o.Prediction})
			if err != nil {
				t.Fatal(err)
			}
			correct += int(sc.Values[MetricExact])
		}
		acc := 100 * float64(correct) / float64(len(outs.Outputs))
		if math.Abs(acc-metrics.Accuracy) > 1e-9 {
			t.Errorf("%s: accuracy %.4f, official %.4f", task, acc, metrics.Accuracy)
		}
	}
	if mismatched > 1 {
		t.Errorf("%d outputs whose input is not the dataset record, want at most 1", mismatched)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestOfficialDirectOutputs: the published answer-only outputs
// (code-davinci-002-outputs/code-davinci-002-direct, point
// POCKETEVAL_BBH_DIRECT_OUTPUTS at it) carry no "the answer is"; the
// flexible metric, which takes a one-line response whole, must reproduce
// their official per-task accuracy.
func TestOfficialDirectOutputs(t *testing.T) {
	dir := os.Getenv("POCKETEVAL_BBH_DIRECT_OUTPUTS")
	if dir == "" {
		t.Skip("POCKETEVAL_BBH_DIRECT_OUTPUTS not set (directory code-davinci-002-outputs/code-davinci-002-direct of suzgunmirac/BIG-Bench-Hard)")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*_few_shot_template_0-255000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 27 {
		t.Fatalf("%d output files in %s, want 27", len(files), dir)
	}
	for _, f := range files {
		var outs struct {
			Outputs []struct {
				Input, Prediction, Target string
			} `json:"outputs"`
		}
		readJSON(t, f, &outs)
		var metrics struct {
			Accuracy float64 `json:"accuracy"`
		}
		readJSON(t, strings.TrimSuffix(f, ".json")+"_eval_metrics.jsonl", &metrics)
		correct := 0
		for _, o := range outs.Outputs {
			s := evals.Sample{Input: o.Input, Target: o.Target}
			sc, err := New().Score(context.Background(), s, evals.Output{Text: o.Prediction})
			if err != nil {
				t.Fatal(err)
			}
			correct += int(sc.Values[MetricFlexible])
		}
		acc := 100 * float64(correct) / float64(len(outs.Outputs))
		if math.Abs(acc-metrics.Accuracy) > 1e-9 {
			t.Errorf("%s: flexible accuracy %.4f, official %.4f", filepath.Base(f), acc, metrics.Accuracy)
		}
	}
}

// TestCheckPromptIsPromptsError: CheckPrompt returns the error Prompt
// returns, with and without the prompts loaded, for every subtask.
func TestCheckPromptIsPromptsError(t *testing.T) {
	t.Parallel()
	d := load(t)
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	task := New()
	seen := map[string]bool{}
	for _, data := range []*evals.Dataset{d, {Samples: d.Samples}} {
		for i, s := range data.Samples {
			if seen[s.Group] && i%97 != 0 {
				continue
			}
			seen[s.Group] = true
			for _, k := range []int{-1, 0, 3} {
				for _, chat := range []bool{false, true} {
					cfg := evals.PromptConfig{NumFewshot: k, Chat: chat}
					_, perr := task.Prompt(data, s, cfg)
					if got, want := errText(task.CheckPrompt(data, s, cfg)), errText(perr); got != want {
						t.Fatalf("%s k=%d chat=%v: CheckPrompt %q, Prompt %q", s.ID, k, chat, got, want)
					}
				}
			}
		}
		seen = map[string]bool{}
	}
	other := d.Samples[0]
	other.Group = "no_such_subtask"
	if err := task.CheckPrompt(d, other, evals.PromptConfig{}); err == nil {
		t.Error("a subtask without a prompt: no error")
	}
}
