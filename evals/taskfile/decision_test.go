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

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/rank"
	"github.com/pocketeval/pocketeval/scorers/selective"
)

func loadDecision(t *testing.T, name string) (*ChoiceTask, *evals.Dataset) {
	t.Helper()
	task, err := Parse(filepath.Join("..", "..", "examples", "decisions", name))
	if err != nil {
		t.Fatal(err)
	}
	mt, err := task.(*ChoiceTask).WithMode(ModeLoglik)
	if err != nil {
		t.Fatal(err)
	}
	d, err := mt.Load(context.Background(), evals.LoadConfig{NumFewshot: -1, Seed: 1234})
	if err != nil {
		t.Fatal(err)
	}
	return mt.(*ChoiceTask), d
}

// fakeLoglik gives every candidate a made-up log-likelihood that favours
// the gold one on some samples.
func fakeLoglik(s evals.Sample, i int) []runtime.LoglikResult {
	gold := s.Meta[metaGold].([]int)[0]
	out := make([]runtime.LoglikResult, len(s.Choices))
	for c := range out {
		lp := -float64((i*7+c*3)%11) - 1
		if c == gold && i%3 != 0 {
			lp += float64(i%5) + 0.5
		}
		out[c] = runtime.LoglikResult{LogProb: lp, Tokens: 1 + c%2}
	}
	return out
}

// TestDecisionTask scores the example decision task with made-up
// log-likelihoods and checks its aggregate against scorers/selective and
// scorers/rank applied directly.
func TestDecisionTask(t *testing.T) {
	task, d := loadDecision(t, "intent_option.yaml")
	if len(d.Samples) != 96 || d.Samples[48].ID != "calibration/0" || d.Samples[47].ID != "47" {
		t.Fatalf("%d samples, ids %q %q", len(d.Samples), d.Samples[47].ID, d.Samples[48].ID)
	}
	var results []evals.SampleResult
	var cal, test struct {
		conf    []float64
		correct []bool
		scores  [][]float64
		gold    []int
	}
	for i, s := range d.Samples {
		reqs, err := task.LoglikRequests(d, s, evals.PromptConfig{})
		if err != nil || len(reqs) != len(s.Choices) || !strings.HasSuffix(reqs[0].Context, "意图：") {
			t.Fatalf("sample %s: requests %v, %v", s.ID, reqs, err)
		}
		out := evals.Output{Loglik: fakeLoglik(s, i)}
		sc, err := task.Score(context.Background(), s, out)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, evals.SampleResult{Sample: s, Score: sc})
		scores := make([]float64, len(out.Loglik))
		for c, r := range out.Loglik {
			scores[c] = r.LogProb / float64(r.Tokens)
		}
		gold := s.Meta[metaGold].([]int)[0]
		r, _ := rank.Score(scores, gold)
		x := &test
		if i >= 48 {
			x = &cal
			if _, ok := sc.Values["acc"]; ok || len(sc.Values) != 1 {
				t.Errorf("calibration sample %s: values %v, want calibration_acc only", s.ID, sc.Values)
			}
		}
		x.conf, x.correct = append(x.conf, r.Confidence), append(x.correct, r.Correct)
		x.scores, x.gold = append(x.scores, scores), append(x.gold, gold)
	}
	agg := task.Aggregate(results)
	aurc, eaurc := selective.AURC(test.conf, test.correct)
	temp, _ := selective.FitTemperature(cal.scores, cal.gold)
	op := selective.Choose(cal.conf, cal.correct, test.conf, test.correct, 0.05, 1000, 30)
	var tempConf []float64
	for i, s := range test.scores {
		tempConf = append(tempConf, selective.Softmax(s, temp)[rankPred(s, test.gold[i])])
	}
	want := map[string]float64{
		"ece_calibrated": rank.ECE(tempConf, test.correct),
		"aurc":           aurc, "eaurc": eaurc, "ece": rank.ECE(test.conf, test.correct),
		"coverage_at_error": op.Test.Coverage, "risk_at_error": op.Test.Risk, "threshold": op.Chosen.Threshold,
	}
	for k, v := range want {
		if got, ok := agg.Metrics[k]; !ok || math.Abs(got-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, got, v)
		}
	}
	rep := agg.Decision
	if rep == nil || rep.TestItems != 48 || rep.CalibrationItems != 48 || math.Abs(rep.Temperature-temp) > 1e-12 || rep.Scoring != "option/tokens" {
		t.Fatalf("report = %+v", rep)
	}
	if len(rep.ByCandidates) != 4 || rep.ByCandidates[0].Candidates != 8 || rep.ByCandidates[3].Candidates != 20 {
		t.Errorf("by candidates = %+v", rep.ByCandidates)
	}
	n := 0
	for _, sl := range rep.ByCandidates {
		n += sl.N
	}
	if n != 48 {
		t.Errorf("by-candidates slices hold %d test items, want 48", n)
	}
	if _, ok := agg.Breakdown["candidates:08"]; !ok {
		t.Errorf("breakdown = %v", agg.Breakdown)
	}
}

func TestDecisionFirstTokenNeedsOneTokenLabels(t *testing.T) {
	task, d := loadDecision(t, "intent_first_token.yaml")
	s := d.Samples[0]
	out := evals.Output{Loglik: fakeLoglik(s, 1)}
	if _, err := task.Score(context.Background(), s, out); err == nil || !strings.Contains(err.Error(), "needs labels of one token each") {
		t.Fatalf("two-token label: %v", err)
	}
	for i := range out.Loglik {
		out.Loglik[i].Tokens = 1
	}
	sc, err := task.Score(context.Background(), s, out)
	if err != nil || sc.Details["decision"] != FirstToken {
		t.Fatalf("score = %+v, %v", sc, err)
	}
}

func TestDecisionContract(t *testing.T) {
	for _, name := range []string{"intent_option.yaml", "intent_first_token.yaml"} {
		task, err := Parse(filepath.Join("..", "..", "examples", "decisions", name))
		if err != nil {
			t.Fatal(err)
		}
		checkContract(t, task, evalstest.Options{DataDir: t.TempDir(), Samples: 8})
	}
}

func TestDecisionConfigErrors(t *testing.T) {
	base := "task: d\ndataset_path: json\ndataset_kwargs: {data_files: {test: t.jsonl, cal: c.jsonl}}\ntest_split: test\noutput_type: multiple_choice\ndoc_to_text: q\ndoc_to_choice: c\ndoc_to_target: g\n"
	for _, c := range []struct{ extra, want string }{
		{"decision: {score: first_token}\n", `"decision.calibration_split": missing`},
		{"decision: {score: best, calibration_split: cal}\n", `"best": want first_token or option`},
		{"decision: {score: option, calibration_split: test}\n", `is the evaluated split`},
		{"decision: {score: first_token, length_norm: chars, calibration_split: cal}\n", `applies to score: option only`},
		{"decision: {score: option, calibration_split: cal, target_error: 5}\n", `between 0 and 1`},
		{"decision: {score: option, calibration_split: cal, colour: red}\n", `unknown key`},
		{"decision: {score: option, calibration_split: cal, bootstrap: 1000000000}\n", `from 100 to 100000`},
		{"decision: first_token\n", `want a mapping`},
		{"decision: {score: option, calibration_split: cal}\nmetric_list: [{metric: acc}]\n", `fixed metrics`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "d.yaml")
		if err := os.WriteFile(path, []byte(base+c.extra), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Parse(path)
		var fe *Error
		if err == nil || !errors.As(err, &fe) || fe.Line == 0 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with a line and %q", c.extra, err, c.want)
		}
	}
	if _, err := Parse(writeTemp(t, "task: d\ndataset_path: x.jsonl\ndoc_to_text: q\ndoc_to_target: g\ndecision: {score: option, calibration_split: cal}\n")); err == nil || !strings.Contains(err.Error(), "belongs to a multiple_choice task") {
		t.Errorf("generate_until with a decision block: %v", err)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func rankPred(scores []float64, gold int) int {
	r, _ := rank.Score(scores, gold)
	return r.Pred
}

// TestDecisionUnmet: when no threshold meets the target on the
// calibration split there is no threshold and no risk over no accepted
// decision (not 0, which reads as "accept everything"), coverage is 0,
// the operating point is null in JSON, and N is the test split's 48
// decisions, not the 96 samples (issue 48).
func TestDecisionUnmet(t *testing.T) {
	task, d := loadDecision(t, "intent_option.yaml")
	var results []evals.SampleResult
	for _, s := range d.Samples {
		gold := s.Meta[metaGold].([]int)[0]
		out := make([]runtime.LoglikResult, len(s.Choices))
		for c := range out {
			out[c] = runtime.LoglikResult{LogProb: -1, Tokens: 1}
			if c == gold {
				out[c].LogProb = -9 // always wrong
			}
		}
		sc, err := task.Score(context.Background(), s, evals.Output{Loglik: out})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, evals.SampleResult{Sample: s, Score: sc})
	}
	agg := task.Aggregate(results)
	if agg.Decision == nil || agg.Decision.Operating.Found {
		t.Fatalf("decision %+v: want no threshold found", agg.Decision)
	}
	for _, k := range []string{"threshold", "risk_at_error"} {
		if v, ok := agg.Metrics[k]; ok {
			t.Errorf("%s = %v with no threshold meeting the target; want none", k, v)
		}
	}
	if v := agg.Metrics["coverage_at_error"]; v != 0 {
		t.Errorf("coverage_at_error = %v, want 0", v)
	}
	if agg.N["aurc"] != 48 || agg.N["coverage_at_error"] != 48 {
		t.Errorf("N = %v, want 48 test decisions", agg.N)
	}
	b, err := json.Marshal(agg.Decision.Operating)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"found":false`) || !strings.Contains(s, `"chosen":null`) || !strings.Contains(s, `"resamples":null`) {
		t.Errorf("operating JSON %s: want null for what was not found", s)
	}
	if !strings.Contains(strings.Join(agg.Notes, "\n"), "no threshold keeps") {
		t.Errorf("notes %q: want why no threshold was found", agg.Notes)
	}
}
