package mc

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/golden"
	"github.com/pocketeval/pocketeval/runtime"
)

func TestLoadOfficialMMLULayout(t *testing.T) {
	t.Parallel()
	// data.tar layout: data/{test,dev}, no header, letter answers.
	d, err := MMLU().Load(context.Background(), evals.LoadConfig{DatasetFile: "testdata/mmlu_official", NumFewshot: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Samples) != 2 {
		t.Fatalf("samples = %d, want 2", len(d.Samples))
	}
	s := d.Samples[1]
	if s.ID != "toy_physics/1" || s.Target != "A" || s.Choices[1] != "mass, only" || s.Group != "toy_physics" {
		t.Errorf("sample = %+v", s)
	}
	// An unknown subject is loaded with a warning, not dropped.
	if len(d.Warnings) == 0 || !strings.Contains(strings.Join(d.Warnings, "\n"), "no official category") {
		t.Errorf("warnings = %v", d.Warnings)
	}
	// Two shots need two dev examples.
	if _, err := MMLU().Load(context.Background(), evals.LoadConfig{DatasetFile: "testdata/mmlu_official", NumFewshot: 2}); err == nil {
		t.Error("2-shot with 1 dev example accepted")
	}
}

func TestLoadErrorsNameFileAndLine(t *testing.T) {
	t.Parallel()
	_, err := MMLU().Load(context.Background(), evals.LoadConfig{DatasetFile: "testdata/mmlu_bad", NumFewshot: 0})
	if err == nil || !strings.Contains(err.Error(), "broken_test.csv:3: answer") {
		t.Errorf("err = %v, want file:line:field", err)
	}
	_, err = CMMLU().Load(context.Background(), evals.LoadConfig{DataDir: t.TempDir(), NumFewshot: 0})
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "official source") {
		t.Errorf("missing data: err = %v", err)
	}
	if _, err := ARCChallenge().Load(context.Background(), evals.LoadConfig{DataDir: t.TempDir(), NumFewshot: 5}); err == nil || !strings.Contains(err.Error(), "no few-shot split") {
		t.Errorf("ARC 5-shot: err = %v", err)
	}
}

func TestLoadCEvalZip(t *testing.T) {
	t.Parallel()
	zipPath := filepath.Join(t.TempDir(), "ceval-exam.zip")
	f, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range []string{"val/toy_law_val.csv", "dev/toy_law_dev.csv"} {
		raw, err := os.ReadFile(filepath.Join("testdata/ceval_dir", name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{zipPath, "testdata/ceval_dir"} {
		d, err := CEval().Load(context.Background(), evals.LoadConfig{DatasetFile: root, NumFewshot: 1})
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		if len(d.Samples) != 1 || d.Samples[0].Target != "A" || d.Samples[0].ID != "toy_law/0" {
			t.Errorf("%s: samples = %+v", root, d.Samples)
		}
		if dev := d.Extra.(*extra).dev["toy_law"]; len(dev) != 1 || dev[0].Target != "C" {
			t.Errorf("%s: dev = %+v", root, dev)
		}
		if len(d.Files) == 0 {
			t.Errorf("%s: no digests", root)
		}
	}
}

func TestLoadARCOfficialFormat(t *testing.T) {
	t.Parallel()
	d, err := ARCChallenge().Load(context.Background(), evals.LoadConfig{DatasetFile: "testdata/arc_official.jsonl", NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Samples) != 2 {
		t.Fatalf("samples = %d", len(d.Samples))
	}
	// Numeric labels map to letters by position.
	if s := d.Samples[0]; s.ID != "NYSEDREGENTS_2008_8_34" || s.Target != "B" || len(s.Choices) != 4 {
		t.Errorf("sample 0 = %+v", s)
	}
	if s := d.Samples[1]; s.Target != "A" || len(s.Choices) != 3 {
		t.Errorf("sample 1 = %+v", s)
	}
}

// TestPromptGolden renders the first shared-data sample of every task in
// each prompt shape and compares with testdata/*.golden (-update rewrites).
func TestPromptGolden(t *testing.T) {
	t.Parallel()
	root := dataDir(t)
	for _, task := range []*Task{MMLU(), CEval(), CMMLU(), ARCChallenge()} {
		name := task.Info().Name
		d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: -1})
		if err != nil {
			t.Fatal(err)
		}
		s := d.Samples[0]
		shots := []int{0, 2}
		if name == "arc_challenge" {
			shots = []int{0}
		}
		for _, k := range shots {
			for _, chat := range []bool{false, true} {
				req, err := task.Prompt(d, s, evals.PromptConfig{NumFewshot: k, Chat: chat})
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				if chat {
					for _, m := range req.Messages {
						fmt.Fprintf(&b, "<%s>\n%s\n", m.Role, m.Content)
					}
				} else {
					fmt.Fprintf(&b, "%s\n<stop %q>\n", req.Prompt, req.Gen.Stop)
				}
				ll, err := task.LoglikRequests(d, s, evals.PromptConfig{NumFewshot: k})
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "<loglik continuations>\n")
				for _, r := range ll {
					fmt.Fprintf(&b, "%q\n", r.Continuation)
					if r.Context != ll[0].Context {
						t.Errorf("%s: options have different contexts", name)
					}
				}
				shape := "raw"
				if chat {
					shape = "chat"
				}
				golden.Check(t, filepath.Join("testdata", fmt.Sprintf("prompt_%s_%s_%dshot.golden", name, shape, k)), []byte(b.String()))
			}
		}
	}
}

func TestScoreGen(t *testing.T) {
	t.Parallel()
	s := evals.Sample{ID: "x/0", Group: "x", Target: "C", Choices: []string{"red", "green", "blue", "yellow"}}
	tests := []struct {
		name               string
		text, prompt       string
		strict, flex, fail float64
		extracted          string
	}{
		{"explicit", "Answer: C", "", 1, 1, 0, "C"},
		{"chinese", "答案：C", "", 1, 1, 0, "C"},
		{"raw continuation after cue", " C", "Q\nA. red\nAnswer:", 1, 1, 0, "C"},
		{"raw continuation after zh cue", "C", "题目\n答案是：", 1, 1, 0, "C"},
		{"lone letter is flexible only", "C", "", 0, 1, 0, "C"},
		{"option text is flexible only", "It is blue.", "", 0, 1, 0, "C"},
		{"wrong", "Answer: A", "", 0, 0, 0, "A"},
		{"nothing", "I refuse.", "", 0, 0, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := MMLU().Score(context.Background(), s, evals.Output{Text: tt.text, Prompt: tt.prompt})
			if err != nil {
				t.Fatal(err)
			}
			v := sc.Values
			if v[MetricStrict] != tt.strict || v[MetricFlexible] != tt.flex || v[MetricExtractFail] != tt.fail || sc.Extracted != tt.extracted {
				t.Errorf("got %v extracted %q, want strict %v flex %v fail %v extracted %q", v, sc.Extracted, tt.strict, tt.flex, tt.fail, tt.extracted)
			}
			if sc.ExtractionFailed != (tt.fail == 1) || sc.Details["mode"] != ModeGen {
				t.Errorf("score = %+v", sc)
			}
		})
	}
}

// fakeLoglik is a runtime.LogLikelihooder whose answers are registered per
// (context, continuation); a request without a stub, or a stub never
// requested, fails the test.
type fakeLoglik struct {
	t     *testing.T
	stubs map[runtime.LoglikRequest]float64
	used  map[runtime.LoglikRequest]bool
}

var _ runtime.LogLikelihooder = (*fakeLoglik)(nil)

func newFakeLoglik(t *testing.T) *fakeLoglik {
	f := &fakeLoglik{t: t, stubs: map[runtime.LoglikRequest]float64{}, used: map[runtime.LoglikRequest]bool{}}
	t.Cleanup(func() {
		for r := range f.stubs {
			if !f.used[r] {
				t.Errorf("stub never requested: %q", r.Continuation)
			}
		}
	})
	return f
}

func (f *fakeLoglik) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	out := make([]runtime.LoglikResult, len(reqs))
	for i, r := range reqs {
		lp, ok := f.stubs[r]
		if !ok {
			f.t.Errorf("unexpected request %q | %q", tail(r.Context), r.Continuation)
			return nil, runtime.ErrNotSupported
		}
		f.used[r] = true
		out[i] = runtime.LoglikResult{LogProb: lp, Tokens: 1}
	}
	return out, nil
}

func tail(s string) string {
	if len(s) > 40 {
		return "…" + s[len(s)-40:]
	}
	return s
}

// loglikRun is what the runner does in loglik mode.
func loglikRun(t *testing.T, task evals.Task, rt runtime.LogLikelihooder, d *evals.Dataset, s evals.Sample, k int) evals.Score {
	t.Helper()
	reqs, err := task.(evals.LoglikTask).LoglikRequests(d, s, evals.PromptConfig{NumFewshot: k})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.LogLikelihood(context.Background(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := task.Score(context.Background(), s, evals.Output{Loglik: res})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestScoreLoglikLetters(t *testing.T) {
	t.Parallel()
	task, err := MMLU().WithMode(ModeLoglik)
	if err != nil {
		t.Fatal(err)
	}
	d, err := task.Load(context.Background(), evals.LoadConfig{DatasetFile: "testdata/mmlu_official", NumFewshot: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Samples[0] // target B
	reqs, err := task.(evals.LoglikTask).LoglikRequests(d, s, evals.PromptConfig{NumFewshot: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := reqs[0].Context
	if !strings.HasSuffix(ctx, "What is the SI unit of force?\nA. joule\nB. newton\nC. watt\nD. pascal\nAnswer:") ||
		!strings.Contains(ctx, "What is the SI unit of energy?\nA. joule\nB. newton\nC. watt\nD. pascal\nAnswer: A\n\n") {
		t.Errorf("context = %q", ctx)
	}
	rt := newFakeLoglik(t)
	for i, lp := range []float64{-2.5, -0.3, -4, -3} {
		rt.stubs[runtime.LoglikRequest{Context: ctx, Continuation: " " + string(rune('A'+i))}] = lp
	}
	sc := loglikRun(t, task, rt, d, s, 1)
	if sc.Values[MetricAcc] != 1 || sc.Values[MetricAccNorm] != 1 || sc.Extracted != "B" || sc.Details["mode"] != ModeLoglik {
		t.Errorf("score = %+v", sc)
	}
}

func TestScoreLoglikOptionTextNorm(t *testing.T) {
	t.Parallel()
	task, err := ARCChallenge().WithMode(ModeLoglik)
	if err != nil {
		t.Fatal(err)
	}
	d, err := task.Load(context.Background(), evals.LoadConfig{DatasetFile: "testdata/arc_official.jsonl", NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Samples[0] // target B, the longest option
	ctx := "Question: " + s.Input + "\nAnswer:"
	rt := newFakeLoglik(t)
	// Raw log-probability favours the short option A (-6 > -9), per
	// character B wins (-9/55 > -6/26).
	lps := []float64{-6, -9, -8, -10}
	for i, c := range s.Choices {
		rt.stubs[runtime.LoglikRequest{Context: ctx, Continuation: " " + c}] = lps[i]
	}
	sc := loglikRun(t, task, rt, d, s, 0)
	if sc.Values[MetricAcc] != 0 || sc.Values[MetricAccNorm] != 1 {
		t.Errorf("values = %v, want acc 0 acc_norm 1", sc.Values)
	}
}

func TestScoreLoglikErrors(t *testing.T) {
	t.Parallel()
	task, _ := CMMLU().WithMode(ModeLoglik)
	s := evals.Sample{ID: "x/0", Target: "A", Choices: []string{"a", "b", "c", "d"}}
	if _, err := task.Score(context.Background(), s, evals.Output{Text: "A"}); err == nil {
		t.Error("loglik score without log-likelihoods accepted")
	}
	if _, err := task.Score(context.Background(), s, evals.Output{Loglik: make([]runtime.LoglikResult, 3)}); err == nil {
		t.Error("3 results for 4 options accepted")
	}
	if _, err := MMLU().WithMode("ppl"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestInfoByMode(t *testing.T) {
	t.Parallel()
	for _, task := range Tasks() {
		gen := task.Info()
		lt, err := task.(*Task).WithMode(ModeLoglik)
		if err != nil {
			t.Fatal(err)
		}
		ll := lt.Info()
		if gen.Name != ll.Name || gen.Version == ll.Version {
			t.Errorf("%s: versions %q and %q must differ by mode", gen.Name, gen.Version, ll.Version)
		}
		wantGen := MetricFlexible
		if gen.Name == "ceval" || gen.Name == "cmmlu" {
			wantGen = MetricOfficial // OpenCompass's first_capital_postprocess
		}
		if gen.PrimaryMetric != wantGen || ll.PrimaryMetric != MetricAcc {
			t.Errorf("%s: primary metrics %s / %s", gen.Name, gen.PrimaryMetric, ll.PrimaryMetric)
		}
	}
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	res := func(subject string, v float64) evals.SampleResult {
		return evals.SampleResult{
			Sample: evals.Sample{Group: subject},
			Score:  evals.Score{Values: map[string]float64{MetricFlexible: v, MetricStrict: v, MetricExtractFail: 0}},
		}
	}
	// anatomy (MMLU "other"): 1/1; abstract_algebra (STEM): 1/3.
	results := []evals.SampleResult{res("anatomy", 1), res("abstract_algebra", 1), res("abstract_algebra", 0), res("abstract_algebra", 0)}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

	mmlu := MMLU().Aggregate(results)
	if !near(mmlu.Metrics["acc_flexible_micro"], 0.5) || !near(mmlu.Metrics["acc_flexible_macro"], 2.0/3) {
		t.Errorf("mmlu metrics = %v", mmlu.Metrics)
	}
	if b := mmlu.Breakdown["category:"+mmluOther]; b == nil || b[MetricFlexible] != 1 || b["n"] != 1 {
		t.Errorf("mmlu other = %v (anatomy belongs to other in the official map)", b)
	}
	if b := mmlu.Breakdown["abstract_algebra"]; !near(b[MetricFlexible], 1.0/3) || b["n"] != 3 {
		t.Errorf("subject = %v", b)
	}
	if !strings.Contains(strings.Join(mmlu.Notes, "\n"), "headline: acc_flexible_micro") {
		t.Errorf("mmlu notes = %v", mmlu.Notes)
	}

	// C-Eval: headline and categories are macro; Hard overlaps STEM.
	cres := []evals.SampleResult{res("advanced_mathematics", 1), res("computer_network", 1), res("computer_network", 0), res("computer_network", 0), res("law", 0)}
	ceval := CEval().Aggregate(cres)
	if b := ceval.Breakdown["category:"+catSTEM]; !near(b[MetricFlexible], (1+1.0/3)/2) || !near(b[MetricFlexible+"_micro"], 0.5) {
		t.Errorf("ceval STEM = %v", b)
	}
	if b := ceval.Breakdown["category:"+catHard]; b[MetricFlexible] != 1 || b["subjects"] != 1 {
		t.Errorf("ceval Hard = %v", b)
	}
	if !strings.Contains(strings.Join(ceval.Notes, "\n"), "headline: acc_flexible_macro") {
		t.Errorf("ceval notes = %v", ceval.Notes)
	}

	// CMMLU: a China-specific subject counts in two categories.
	cm := CMMLU().Aggregate([]evals.SampleResult{res("chinese_history", 1), res("philosophy", 0)})
	if cm.Breakdown["category:"+catChina][MetricFlexible] != 1 || cm.Breakdown["category:"+catHumanities][MetricFlexible] != 0.5 {
		t.Errorf("cmmlu breakdown = %v", cm.Breakdown)
	}

	// Loglik mode aggregates acc and acc_norm.
	lt, _ := ARCChallenge().WithMode(ModeLoglik)
	arc := lt.(evals.Aggregator).Aggregate([]evals.SampleResult{
		{Score: evals.Score{Values: map[string]float64{MetricAcc: 1, MetricAccNorm: 0}}},
		{Score: evals.Score{Values: map[string]float64{MetricAcc: 0, MetricAccNorm: 0}}},
	})
	if arc.Metrics["acc_micro"] != 0.5 || arc.Metrics["acc_norm_micro"] != 0 || !strings.Contains(arc.Notes[0], "loglik") {
		t.Errorf("arc = %+v", arc)
	}
}

func TestCategoryMapsComplete(t *testing.T) {
	t.Parallel()
	count := func(m map[string]string) map[string]int {
		c := map[string]int{}
		for _, v := range m {
			c[v]++
		}
		return c
	}
	if got := count(mmluCategory); len(mmluCategory) != 57 || got[mmluSTEM] != 18 || got[mmluHumanities] != 13 || got[mmluSocial] != 12 || got[mmluOther] != 14 {
		t.Errorf("mmlu categories = %v (%d subjects)", got, len(mmluCategory))
	}
	if len(cevalSubjects) != 52 || len(cevalHard) != 8 {
		t.Errorf("ceval: %d subjects, %d hard", len(cevalSubjects), len(cevalHard))
	}
	for s := range cevalHard {
		if cevalSubjects[s].category != catSTEM {
			t.Errorf("hard subject %s is not STEM", s)
		}
	}
	china := 0
	for _, s := range cmmluSubjects {
		if len(s.categories) == 2 {
			china++
		}
	}
	if len(cmmluSubjects) != 67 || china != 15 {
		t.Errorf("cmmlu: %d subjects, %d China-specific", len(cmmluSubjects), china)
	}
}

// A runner that fills Output.Loglik without switching the task's mode
// still gets log-likelihood scores and aggregates.
func TestLoglikWithoutWithMode(t *testing.T) {
	t.Parallel()
	task := MMLU() // gen mode
	s := evals.Sample{ID: "anatomy/0", Group: "anatomy", Target: "B", Choices: []string{"a", "b", "c", "d"}}
	out := evals.Output{Loglik: []runtime.LoglikResult{{LogProb: -3}, {LogProb: -1}, {LogProb: -2}, {LogProb: -5}}}
	sc, err := task.Score(context.Background(), s, out)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Values[MetricAcc] != 1 || sc.Details["mode"] != ModeLoglik {
		t.Fatalf("score = %+v", sc)
	}
	agg := task.Aggregate([]evals.SampleResult{{Sample: s, Score: sc}})
	if agg.Metrics["acc_micro"] != 1 || !strings.HasPrefix(agg.Notes[0], "scoring mode: loglik") {
		t.Errorf("aggregate = %+v", agg)
	}
}

// TestOfficialRule: C-Eval and CMMLU report OpenCompass's
// first_capital_postprocess beside pocketeval's extraction; it takes the
// first capital even when it is not the answer pocketeval reads.
func TestOfficialRule(t *testing.T) {
	t.Parallel()
	s := evals.Sample{ID: "x/0", Choices: []string{"甲", "乙", "丙", "丁"}, Target: "B"}
	for _, c := range []struct {
		task     *Task
		text     string
		official float64
		flexible float64
	}{
		{CEval(), "B", 1, 1},
		{CEval(), "根据题意，答案是B", 1, 1},
		{CEval(), "The answer is B", 0, 1},
		{CMMLU(), "答案是：B。A项错误", 1, 1},
		{MMLU(), "The answer is B", -1, 1},
	} {
		sc, err := c.task.Score(context.Background(), s, evals.Output{Text: c.text})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := sc.Values[MetricOfficial]
		if c.official < 0 {
			if ok {
				t.Errorf("%s has no official generative rule, got %s", c.task.Info().Name, MetricOfficial)
			}
			continue
		}
		if got != c.official || sc.Values[MetricFlexible] != c.flexible {
			t.Errorf("%s %q: official %v flexible %v, want %v %v", c.task.Info().Name, c.text, got, sc.Values[MetricFlexible], c.official, c.flexible)
		}
	}
}

// TestCheckPromptIsPromptsError: CheckPrompt returns the error Prompt
// returns, for every shot count (too many for a subject's dev set
// included), chat or raw, and for a dataset this task did not load.
func TestCheckPromptIsPromptsError(t *testing.T) {
	t.Parallel()
	root := dataDir(t)
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, task := range []*Task{MMLU(), CMMLU(), ARCChallenge()} {
		d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range []*evals.Dataset{d, {Samples: d.Samples}} {
			for _, k := range []int{-1, 0, 1, 5, 6, 1000} {
				for _, chat := range []bool{false, true} {
					cfg := evals.PromptConfig{NumFewshot: k, Chat: chat}
					for _, s := range data.Samples[:min(len(data.Samples), 50)] {
						_, perr := task.Prompt(data, s, cfg)
						if got, want := errText(task.CheckPrompt(data, s, cfg)), errText(perr); got != want {
							t.Fatalf("%s %s k=%d chat=%v: CheckPrompt %q, Prompt %q", task.Info().Name, s.ID, k, chat, got, want)
						}
					}
				}
			}
		}
	}
}
