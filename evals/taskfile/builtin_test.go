package taskfile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	mathtasks "github.com/pocketeval/pocketeval/evals/math"
	"github.com/pocketeval/pocketeval/evals/mc"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestBuiltinTasksMatchLMEval compares pocketeval's built-in tasks, where
// they claim lm-eval's format, with the requests lm-eval builds for the
// same documents (testdata/lmeval/golden):
//
//   - gsm8k in completion mode (--raw), zero-shot: lm-eval's gsm8k;
//   - arc_challenge in loglik mode: lm-eval's arc_challenge;
//   - mmlu in loglik mode, zero- and 5-shot: lm-eval's mmlu_anatomy.
//
// Few-shot GSM8K (raw, and chat against gsm8k_cot_llama) is compared with
// lm-eval's requests on the real train split in evals/math
// (TestGSM8KMatchesLMEval).
func TestBuiltinTasksMatchLMEval(t *testing.T) {
	data := sharedtest.Datasets(t)
	ctx := context.Background()
	readGolden := func(name string) golden {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join("testdata", "lmeval", "golden", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var g golden
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	samplesByID := func(d *evals.Dataset) map[string]evals.Sample {
		m := map[string]evals.Sample{}
		for _, s := range d.Samples {
			m[s.ID] = s
		}
		return m
	}

	t.Run("gsm8k raw zero-shot", func(t *testing.T) {
		g := readGolden("gsm8k")
		task := mathtasks.GSM8K{}
		d, err := task.Load(ctx, evals.LoadConfig{DataDir: data, NumFewshot: 0, Seed: 1234})
		if err != nil {
			t.Fatal(err)
		}
		byID := samplesByID(d)
		var zero []goldenDoc
		for _, r := range g.Renders {
			if r.NumFewshot == 0 {
				zero = r.Docs
			}
		}
		if zero == nil {
			t.Fatal("the golden has no zero-shot render")
		}
		for _, doc := range zero {
			s := byID[itoa(doc.DocID)]
			req, err := task.Prompt(d, s, evals.PromptConfig{NumFewshot: 0, Chat: false})
			if err != nil {
				t.Fatal(err)
			}
			if want := doc.Requests[0].Context; req.Prompt != want {
				t.Errorf("doc %d: built-in prompt differs\n%s", doc.DocID, diff(req.Prompt, want))
			}
			if !slices.Equal(req.Gen.Stop, doc.Requests[0].Until) {
				t.Errorf("doc %d: stop %q, lm-eval until %q", doc.DocID, req.Gen.Stop, doc.Requests[0].Until)
			}
		}
	})

	t.Run("arc_challenge loglik", func(t *testing.T) {
		g := readGolden("arc_challenge")
		task, err := mc.ARCChallenge().WithMode(mc.ModeLoglik)
		if err != nil {
			t.Fatal(err)
		}
		d, err := task.Load(ctx, evals.LoadConfig{DataDir: data, NumFewshot: 0, Seed: 1234})
		if err != nil {
			t.Fatal(err)
		}
		compareLoglik(t, task.(evals.LoglikTask), d, d.Samples[:len(g.Renders[0].Docs)], g.Renders[0].Docs, 0)
	})

	t.Run("mmlu loglik", func(t *testing.T) {
		g := readGolden("mmlu_anatomy")
		task, err := mc.MMLU().WithMode(mc.ModeLoglik)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range g.Renders {
			d, err := task.Load(ctx, evals.LoadConfig{DataDir: data, NumFewshot: r.NumFewshot, Seed: 1234})
			if err != nil {
				t.Fatal(err)
			}
			byID := samplesByID(d)
			var samples []evals.Sample
			for _, doc := range r.Docs {
				samples = append(samples, byID["anatomy/"+itoa(doc.DocID)])
			}
			compareLoglik(t, task.(evals.LoglikTask), d, samples, r.Docs, r.NumFewshot)
		}
	})
}

func compareLoglik(t *testing.T, task evals.LoglikTask, d *evals.Dataset, samples []evals.Sample, docs []goldenDoc, k int) {
	t.Helper()
	for i, doc := range docs {
		reqs, err := task.LoglikRequests(d, samples[i], evals.PromptConfig{NumFewshot: k})
		if err != nil {
			t.Fatal(err)
		}
		if len(reqs) != len(doc.Requests) {
			t.Fatalf("%d-shot doc %d: %d requests, lm-eval %d", k, doc.DocID, len(reqs), len(doc.Requests))
		}
		for j, want := range doc.Requests {
			if reqs[j].Context != want.Context || reqs[j].Continuation != *want.Continuation {
				t.Errorf("%d-shot doc %d choice %d: built-in request differs\ncontext: %s\ncontinuation %q, lm-eval %q",
					k, doc.DocID, j, diff(reqs[j].Context, want.Context), reqs[j].Continuation, *want.Continuation)
			}
		}
	}
}
