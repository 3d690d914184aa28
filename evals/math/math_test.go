package math

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/fewshot"
	"github.com/pocketeval/pocketeval/internal/golden"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
)

// load loads a task from the shared data, skipping when the file is absent.
func load(t *testing.T, task evals.Task, cfg evals.LoadConfig) *evals.Dataset {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = sharedtest.Datasets(t)
	}
	d, err := task.Load(context.Background(), cfg)
	var missing *MissingDataError
	if errors.As(err, &missing) && missing.Path == filepath.Join(cfg.DataDir, task.Info().DatasetFiles[0]) {
		t.Skipf("dataset absent: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		task        evals.Task
		n           int
		firstID     string
		firstTarget string
	}{
		{GSM8K{}, 1319, "0", "18"},
		{MGSM{Lang: "zh"}, 250, "0", "18"},
		{MGSM{Lang: "en"}, 250, "0", "18"},
		{MATH500{}, 500, "test/precalculus/807.json", `\left( 3, \frac{\pi}{2} \right)`},
	}
	for _, tt := range tests {
		t.Run(tt.task.Info().Name, func(t *testing.T) {
			t.Parallel()
			d := load(t, tt.task, evals.LoadConfig{NumFewshot: -1})
			if len(d.Samples) != tt.n {
				t.Errorf("%d samples, want %d", len(d.Samples), tt.n)
			}
			if s := d.Samples[0]; s.ID != tt.firstID || s.Target != tt.firstTarget {
				t.Errorf("first sample id %q target %q, want %q %q", s.ID, s.Target, tt.firstID, tt.firstTarget)
			}
			if len(d.Files) != 1 {
				t.Errorf("Files = %v, want the one dataset file with its sha256", d.Files)
			}
			ids := map[string]bool{}
			for _, s := range d.Samples {
				if ids[s.ID] {
					t.Fatalf("duplicate id %q", s.ID)
				}
				ids[s.ID] = true
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()

	_, err := GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: filepath.Join(dir, "none")})
	var missing *MissingDataError
	if !errors.As(err, &missing) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "grade-school-math") {
		t.Errorf("missing file: got %v, want a MissingDataError naming the source", err)
	}

	write("gsm8k/test.jsonl", `{"question":"q1","answer":"x\n#### 3"}`+"\n"+`{"question":"q2","answer":"no final line"}`+"\n")
	_, err = GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: dir})
	var de *DataError
	if !errors.As(err, &de) || de.Line != 2 || de.Field != "answer" {
		t.Errorf("malformed answer: got %v, want a DataError at line 2 field answer", err)
	}

	write("mgsm/mgsm_zh.tsv", "问题一\t5\n问题二 没有答案\n")
	_, err = MGSM{Lang: "zh"}.Load(ctx, evals.LoadConfig{DataDir: dir})
	if !errors.As(err, &de) || de.Line != 2 {
		t.Errorf("malformed tsv: got %v, want a DataError at line 2", err)
	}

	write("math500/test.jsonl", `{"problem":"p","answer":"1","unique_id":"a"}`+"\n"+`{"problem":"p","answer":"","unique_id":"b"}`+"\n")
	_, err = MATH500{}.Load(ctx, evals.LoadConfig{DataDir: dir})
	if !errors.As(err, &de) || de.Line != 2 || de.Field != "answer" {
		t.Errorf("empty answer: got %v, want a DataError at line 2 field answer", err)
	}

	// Without train.jsonl, chat few-shot (fixed exemplars) works and raw
	// few-shot fails naming the file.
	write("gsm8k/test.jsonl", `{"question":"q1","answer":"x\n#### 3"}`+"\n")
	d, err := GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: dir, NumFewshot: 2})
	if err != nil {
		t.Fatalf("few-shot without train split: %v", err)
	}
	if req, err := (GSM8K{}).Prompt(d, d.Samples[0], evals.PromptConfig{NumFewshot: -1, Chat: true}); err != nil || len(req.Messages) != 5 {
		t.Errorf("chat 2-shot without train split: %d messages, %v", len(req.Messages), err)
	}
	_, err = GSM8K{}.Prompt(d, d.Samples[0], evals.PromptConfig{NumFewshot: -1})
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "train") {
		t.Errorf("raw few-shot without train split: got %v, want a MissingDataError for train.jsonl", err)
	}
	if _, err := (MGSM{Lang: "zh"}).Load(ctx, evals.LoadConfig{DataDir: dir, NumFewshot: 3}); err == nil {
		t.Error("MGSM accepted --num-fewshot 3")
	}
}

// fewshotDir builds a data directory with the shared GSM8K test file and
// the small train file from testdata/.
func fewshotDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "gsm8k"), 0o755); err != nil {
		t.Fatal(err)
	}
	train, err := os.ReadFile(filepath.Join("testdata", "gsm8k_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	test := `{"question": "Janet has 5 eggs and buys 7 more. How many eggs does she have?", "answer": "5+7=<<5+7=12>>12\n#### 12"}` + "\n" +
		`{"question": "A box holds 6 cans. How many cans are in 4 boxes?", "answer": "6*4=<<6*4=24>>24\n#### 24"}` + "\n"
	for name, body := range map[string]string{"train.jsonl": string(train), "test.jsonl": test} {
		if err := os.WriteFile(filepath.Join(dir, "gsm8k", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// render turns a request into stable text for golden files.
func render(req runtime.Request) string {
	var b strings.Builder
	if req.IsChat() {
		for _, m := range req.Messages {
			fmt.Fprintf(&b, "=== %s ===\n%s\n", m.Role, m.Content)
		}
	} else {
		fmt.Fprintf(&b, "=== prompt ===\n%s\n", req.Prompt)
	}
	gen, _ := json.Marshal(req.Gen)
	fmt.Fprintf(&b, "=== gen ===\n%s\n", gen)
	return b.String()
}

func TestPromptsGolden(t *testing.T) {
	t.Parallel()
	fs := fewshotDir(t)
	ctx := context.Background()
	gsm3, err := GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: fs, NumFewshot: 3, Seed: 1234})
	if err != nil {
		t.Fatal(err)
	}
	gsm0, err := GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: fs, NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	mgsmData := &evals.Dataset{}
	mathData := &evals.Dataset{}
	mgsmSample := evals.Sample{ID: "0", Input: "珍妮特的鸭子每天下 16 颗蛋。她每天卖多少钱？", Target: "18"}
	mathSample := evals.Sample{ID: "test/x/1.json", Input: "What is $1+1$?", Target: "2"}
	chat := evals.PromptConfig{NumFewshot: -1, Chat: true}
	raw := evals.PromptConfig{NumFewshot: -1, Chat: false}
	tests := []struct {
		name string
		task evals.Task
		d    *evals.Dataset
		s    evals.Sample
		cfg  evals.PromptConfig
	}{
		{"gsm8k_chat_0shot", GSM8K{}, gsm0, gsm0.Samples[0], chat},
		{"gsm8k_chat_3shot", GSM8K{}, gsm3, gsm3.Samples[0], chat},
		{"gsm8k_raw_3shot", GSM8K{}, gsm3, gsm3.Samples[0], raw},
		{"mgsm_zh_chat", MGSM{Lang: "zh"}, mgsmData, mgsmSample, chat},
		{"mgsm_zh_raw", MGSM{Lang: "zh"}, mgsmData, mgsmSample, raw},
		{"mgsm_en_chat", MGSM{Lang: "en"}, mgsmData, evals.Sample{ID: "0", Input: "How many?"}, chat},
		{"math500_chat", MATH500{}, mathData, mathSample, chat},
		{"math500_raw", MATH500{}, mathData, mathSample, raw},
	}
	for _, tt := range tests {
		req, err := tt.task.Prompt(tt.d, tt.s, tt.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if req.ID != tt.s.ID || req.Task != tt.task.Info().Name {
			t.Errorf("%s: request id/task = %q/%q", tt.name, req.ID, req.Task)
		}
		golden.Check(t, filepath.Join("testdata", tt.name+".golden"), []byte(render(req)))
	}
}

// TestFewshotDraws checks how few-shot exemplars are chosen: raw prompts
// take the ord-th draw of lm-eval's sampler over the whole test file (so a
// sample gets the same exemplars whatever else is prompted, and in any
// order), the seed changes them, and chat prompts take gsm8k_cot_llama's
// fixed exemplars whatever the seed.
func TestFewshotDraws(t *testing.T) {
	t.Parallel()
	dir := fewshotDir(t)
	ctx := context.Background()
	loadK := func(k int, seed int64) *evals.Dataset {
		d, err := GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: dir, NumFewshot: k, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	prompt := func(d *evals.Dataset, sample int, chat bool) string {
		t.Helper()
		req, err := GSM8K{}.Prompt(d, d.Samples[sample], evals.PromptConfig{NumFewshot: -1, Chat: chat})
		if err != nil {
			t.Fatal(err)
		}
		return render(req)
	}
	a, b := loadK(2, 7), loadK(2, 7)
	second := prompt(a, 1, false)
	if prompt(a, 0, false) == prompt(b, 0, false) && prompt(b, 1, false) != second {
		t.Error("sample 1's exemplars depend on whether sample 0 was prompted first")
	}
	want, err := fewshot.Draw("default", 6, 2, 2, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := a.Extra.(*gsm8kExtra).shots(1, 2); !slices.Equal(got, want[1]) {
		t.Errorf("sample 1 drew %v, the sampler's second draw is %v", got, want[1])
	}
	differs := false
	for seed := int64(0); seed < 10; seed++ {
		if prompt(loadK(2, seed), 0, false) != prompt(loadK(2, seed+100), 0, false) {
			differs = true
		}
		if prompt(loadK(2, seed), 0, true) != prompt(loadK(2, 1234), 0, true) {
			t.Fatalf("seed %d changed the chat exemplars", seed)
		}
	}
	if !differs {
		t.Error("the seed never changes the raw exemplars")
	}
	d := loadK(7, 1234)
	if _, err := (GSM8K{}).Prompt(d, d.Samples[0], evals.PromptConfig{NumFewshot: -1}); err == nil {
		t.Error("7 raw shots from a 6-problem train file: no error")
	}
	if _, err := (GSM8K{}).Prompt(d, d.Samples[0], evals.PromptConfig{NumFewshot: -1, Chat: true}); err != nil {
		t.Errorf("7 chat shots of 8: %v", err)
	}
	if _, err := (GSM8K{}).Prompt(d, d.Samples[0], evals.PromptConfig{NumFewshot: 9, Chat: true}); err == nil {
		t.Error("9 chat shots of gsm8k_cot_llama's 8: no error")
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type want struct{ strict, flex, fail, trunc float64 }
	tests := []struct {
		name   string
		task   evals.Task
		target string
		out    evals.Output
		want   want
	}{
		{"gsm8k cue", GSM8K{}, "18", evals.Output{Text: "9*2=18\nThe final answer is 18", FinishReason: "stop"}, want{1, 1, 0, 0}},
		{"gsm8k hash", GSM8K{}, "18", evals.Output{Text: "9*2=18\n#### 18"}, want{1, 1, 0, 0}},
		{"gsm8k last number only", GSM8K{}, "18", evals.Output{Text: "She makes $18."}, want{0, 1, 0, 0}},
		{"gsm8k wrong", GSM8K{}, "18", evals.Output{Text: "The final answer is 17"}, want{0, 0, 0, 0}},
		{"gsm8k truncated", GSM8K{}, "18", evals.Output{Text: "Let me think about", FinishReason: runtime.FinishLength}, want{0, 0, 1, 1}},
		{"gsm8k comma dollars", GSM8K{}, "70000", evals.Output{Text: "The final answer is $70,000."}, want{1, 1, 0, 0}},
		{"mgsm zh", MGSM{Lang: "zh"}, "18", evals.Output{Text: "16-3-4=9，9×2=18。答案是 18。"}, want{1, 1, 0, 0}},
		{"mgsm zh boxed after lone think", MGSM{Lang: "zh"}, "18", evals.Output{Raw: "先算 16-3-4=9，然后 9×2=17？不对，是 18。</think>\n\n所以答案是 $\\boxed{18}$。", Text: "所以答案是 $\\boxed{18}$。"}, want{1, 1, 0, 0}},
		{"mgsm zh full width", MGSM{Lang: "zh"}, "70000", evals.Output{Text: "答案是７０，０００元。"}, want{1, 1, 0, 0}},
		{"mgsm en", MGSM{Lang: "en"}, "3", evals.Output{Text: "The answer is 3."}, want{1, 1, 0, 0}},
		{"math500 boxed", MATH500{}, `\frac{1}{2}`, evals.Output{Text: `so $\boxed{0.5}$`}, want{1, 1, 0, 0}},
		{"math500 minerva", MATH500{}, `\left( 3, \frac{\pi}{2} \right)`, evals.Output{Text: `The final answer is $(3, \pi/2)$. I hope it is correct.`}, want{0, 1, 0, 0}},
		{"math500 wrong interval", MATH500{}, `[2,5)`, evals.Output{Text: `\boxed{(2,5]}`}, want{0, 0, 0, 0}},
		{"math500 empty", MATH500{}, `3`, evals.Output{Text: ``, FinishReason: runtime.FinishLength}, want{0, 0, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := tt.task.Score(ctx, evals.Sample{ID: "0", Target: tt.target}, tt.out)
			if err != nil {
				t.Fatal(err)
			}
			got := want{sc.Values[MetricStrict], sc.Values[MetricFlexible], sc.Values[MetricFail], sc.Values[MetricTrunc]}
			if got != tt.want {
				t.Errorf("strict/flex/fail/trunc = %v, want %v (extracted %q, details %v)", got, tt.want, sc.Extracted, sc.Details)
			}
			if sc.ExtractionFailed != (tt.want.fail == 1) {
				t.Errorf("ExtractionFailed = %v", sc.ExtractionFailed)
			}
			for _, m := range tt.task.Info().Metrics {
				if _, ok := sc.Values[m]; !ok {
					t.Errorf("metric %q declared in Info but missing from Score", m)
				}
			}
		})
	}
}

// TestReferenceSolutionsScore feeds each dataset's own reference solutions
// back as responses: every one must be judged correct, strictly and
// flexibly. This checks extraction and equivalence on all the real answer
// formats at once.
func TestReferenceSolutionsScore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("gsm8k", func(t *testing.T) {
		t.Parallel()
		d := load(t, GSM8K{}, evals.LoadConfig{NumFewshot: -1})
		path := filepath.Join(sharedtest.Datasets(t), gsm8kTestFile)
		_, ex, _, err := loadGSM8KFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range d.Samples {
			for _, style := range []string{
				ex[i].RawAnswer, // "#### N"
				cleanReasoning(ex[i].Reasoning) + "\nA: " + ex[i].Final,  // OpenAI model-solution style
				ex[i].Reasoning + "\nThe final answer is " + ex[i].Final, // the chat prompt's format
			} {
				sc, err := GSM8K{}.Score(ctx, s, evals.Output{Text: style})
				if err != nil {
					t.Fatal(err)
				}
				if sc.Values[MetricFlexible] != 1 {
					t.Errorf("sample %s: flexible rejected reference %q (extracted %q)", s.ID, style, sc.Extracted)
				}
			}
		}
	})
	t.Run("math500", func(t *testing.T) {
		t.Parallel()
		d := load(t, MATH500{}, evals.LoadConfig{NumFewshot: -1})
		path := filepath.Join(sharedtest.Datasets(t), math500File)
		lines, _, err := readLines("math500", path, math500Source)
		if err != nil {
			t.Fatal(err)
		}
		correct := 0
		for i, s := range d.Samples {
			var r math500Record
			if err := json.Unmarshal(lines[i], &r); err != nil {
				t.Fatal(err)
			}
			sc, err := MATH500{}.Score(ctx, s, evals.Output{Text: r.Solution})
			if err != nil {
				t.Fatal(err)
			}
			if sc.Values[MetricStrict] == 1 && sc.Values[MetricFlexible] == 1 {
				correct++
			} else {
				t.Logf("%s: gold %q, solution's answer %q", s.ID, s.Target, sc.Extracted)
			}
		}
		t.Logf("reference solutions judged correct: %d/%d", correct, len(d.Samples))
		if correct < len(d.Samples)-5 {
			t.Errorf("only %d/%d reference solutions judged correct", correct, len(d.Samples))
		}
	})
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	res := []evals.SampleResult{
		{Sample: evals.Sample{Group: "Algebra", Meta: map[string]any{"level": "1"}}, Score: evals.Score{Values: map[string]float64{MetricFlexible: 1, MetricStrict: 1}}},
		{Sample: evals.Sample{Group: "Algebra", Meta: map[string]any{"level": "2"}}, Score: evals.Score{Values: map[string]float64{MetricFlexible: 0, MetricStrict: 0}}},
		{Sample: evals.Sample{Group: "Geometry", Meta: map[string]any{"level": "2"}}, Score: evals.Score{Values: map[string]float64{MetricFlexible: 1, MetricStrict: 0}}},
	}
	agg := MATH500{}.Aggregate(res)
	check := func(group, metric string, want float64) {
		t.Helper()
		if got := agg.Breakdown[group][metric]; got != want {
			t.Errorf("%s %s = %v, want %v", group, metric, got, want)
		}
	}
	check("Algebra", MetricFlexible, 0.5)
	check("Geometry", MetricStrict, 0)
	check("level 2", MetricFlexible, 0.5)
	check("level 2", "n", 2)
}

// calcAnnotation matches GSM8K calculator annotations "<<48/2=24>>".
var calcAnnotation = regexp.MustCompile(`<<[^<>]*>>`)

// cleanReasoning removes calculator annotations from a reference solution.
func cleanReasoning(s string) string {
	return strings.TrimSpace(calcAnnotation.ReplaceAllString(s, ""))
}

// TestReadLinesLargeFile reads a file larger than a bufio.Scanner's
// buffer, as the 4 MB train.jsonl is: every line must keep its bytes.
func TestReadLinesLargeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&b, "{\"question\": \"problem %d %s\", \"answer\": \"#### %d\"}\r\n", i, strings.Repeat("x", 80), i)
	}
	path := filepath.Join(t.TempDir(), "train.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ex, _, err := loadGSM8KFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 30000 || ex[0].Final != "0" || ex[29999].Final != "29999" || !strings.HasPrefix(ex[12345].Question, "problem 12345 ") {
		t.Fatalf("%d records, first %+v", len(ex), ex[0])
	}
}
