package math

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
)

// lmevalRaw is testdata/lmeval/gsm8k.json: lm-eval's gsm8k requests,
// 5-shot, for the first 20 test documents (--limit 20) and the last 5 of
// a full run, with the train documents its sampler drew.
type lmevalRaw struct {
	Seed         int64  `json:"seed"`
	NumFewshot   int    `json:"num_fewshot"`
	TestSHA256   string `json:"test_sha256"`
	TrainSHA256  string `json:"train_sha256"`
	TrainRecords int    `json:"train_records"`
	Runs         []struct {
		Limit *int `json:"limit"`
		Docs  []struct {
			DocID        int      `json:"doc_id"`
			TrainIndices []int    `json:"train_indices"`
			Context      string   `json:"context"`
			Until        []string `json:"until"`
		} `json:"docs"`
	} `json:"runs"`
	Train map[string]gsm8kRecord `json:"train"`
}

// lmevalChat is testdata/lmeval/gsm8k_cot_llama.json: the chat messages
// lm-eval's gsm8k_cot_llama hands to the chat template under
// --apply_chat_template --fewshot_as_multiturn.
type lmevalChat struct {
	Renders []struct {
		NumFewshot int `json:"num_fewshot"`
		Docs       []struct {
			DocID               int               `json:"doc_id"`
			Messages            []runtime.Message `json:"messages"`
			AddGenerationPrompt bool              `json:"add_generation_prompt"`
			Until               []string          `json:"until"`
		} `json:"docs"`
	} `json:"renders"`
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

func fileSHA256(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), true
}

// lmevalTrainDir returns a data directory whose gsm8k/test.jsonl is the
// shared test file and whose train.jsonl is the real one when the data
// directory has it (the sha256 the goldens were made from). Otherwise it
// writes a train file of the real one's length holding, at the indices
// lm-eval drew, the records the golden gives for them, and placeholders
// elsewhere: the draws depend only on the seed and the pool's size, so
// the prompts must still come out byte for byte.
func lmevalTrainDir(t *testing.T, g *lmevalRaw) string {
	t.Helper()
	data := sharedtest.Datasets(t)
	test := filepath.Join(data, gsm8kTestFile)
	if sum, ok := fileSHA256(t, test); !ok {
		t.Skipf("%s absent", test)
	} else if sum != g.TestSHA256 {
		t.Fatalf("%s has sha256 %s, the goldens were made from %s", test, sum, g.TestSHA256)
	}
	if sum, ok := fileSHA256(t, filepath.Join(data, gsm8kTrainFile)); ok && sum == g.TrainSHA256 {
		t.Logf("real train split: %s", filepath.Join(data, gsm8kTrainFile))
		return data
	}
	t.Logf("no real train split in %s: placeholders around the %d drawn records", data, len(g.Train))
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "gsm8k"), 0o755); err != nil {
		t.Fatal(err)
	}
	testBody, err := os.ReadFile(test)
	if err != nil {
		t.Fatal(err)
	}
	var train strings.Builder
	for i := range g.TrainRecords {
		r, ok := g.Train[fmt.Sprint(i)]
		if !ok {
			r = gsm8kRecord{Question: fmt.Sprintf("placeholder %d", i), Answer: "#### 0"}
		}
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		train.Write(line)
		train.WriteByte('\n')
	}
	for name, body := range map[string][]byte{"test.jsonl": testBody, "train.jsonl": []byte(train.String())} {
		if err := os.WriteFile(filepath.Join(dir, "gsm8k", name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGSM8KMatchesLMEval requires the built-in gsm8k's few-shot prompts to
// equal lm-eval's own requests (testdata/lmeval, make_goldens.py): raw
// prompts those of lm-eval's gsm8k, chat messages those of its
// gsm8k_cot_llama, byte for byte, with the same stop sequences.
func TestGSM8KMatchesLMEval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("raw", func(t *testing.T) {
		t.Parallel()
		var g lmevalRaw
		readJSON(t, filepath.Join("testdata", "lmeval", "gsm8k.json"), &g)
		dir := lmevalTrainDir(t, &g)
		d, err := GSM8K{}.Load(ctx, evals.LoadConfig{DataDir: dir, NumFewshot: g.NumFewshot, Seed: g.Seed})
		if err != nil {
			t.Fatal(err)
		}
		extra := d.Extra.(*gsm8kExtra)
		if len(extra.train) != g.TrainRecords {
			t.Fatalf("%d train records, lm-eval had %d", len(extra.train), g.TrainRecords)
		}
		n := 0
		for _, run := range g.Runs {
			// Prompt the golden's documents last first: a document's
			// examples must not depend on which were prompted before.
			for _, doc := range slices.Backward(run.Docs) {
				s := d.Samples[doc.DocID]
				req, err := GSM8K{}.Prompt(d, s, evals.PromptConfig{NumFewshot: -1})
				if err != nil {
					t.Fatal(err)
				}
				ord := extra.ord[s.ID]
				if got, _ := extra.shots(ord, g.NumFewshot); !slices.Equal(got, doc.TrainIndices) {
					t.Errorf("doc %d: train indices %v, lm-eval drew %v", doc.DocID, got, doc.TrainIndices)
				}
				if req.Prompt != doc.Context {
					t.Errorf("doc %d: prompt differs from lm-eval's\n got: %q\nwant: %q", doc.DocID, req.Prompt, doc.Context)
				}
				if !slices.Equal(req.Gen.Stop, doc.Until) {
					t.Errorf("doc %d: stop %q, lm-eval until %q", doc.DocID, req.Gen.Stop, doc.Until)
				}
				n++
			}
		}
		if n < 25 {
			t.Fatalf("compared %d documents", n)
		}
	})
	t.Run("chat", func(t *testing.T) {
		t.Parallel()
		var g lmevalChat
		readJSON(t, filepath.Join("testdata", "lmeval", "gsm8k_cot_llama.json"), &g)
		data := sharedtest.Datasets(t)
		d := load(t, GSM8K{}, evals.LoadConfig{DataDir: data, NumFewshot: -1})
		ks := map[int]bool{}
		for _, r := range g.Renders {
			ks[r.NumFewshot] = true
			for _, doc := range r.Docs {
				req, err := GSM8K{}.Prompt(d, d.Samples[doc.DocID], evals.PromptConfig{NumFewshot: r.NumFewshot, Chat: true})
				if err != nil {
					t.Fatal(err)
				}
				if !doc.AddGenerationPrompt {
					t.Errorf("%d-shot doc %d: lm-eval adds no generation prompt", r.NumFewshot, doc.DocID)
				}
				if !reflect.DeepEqual(req.Messages, doc.Messages) {
					t.Errorf("%d-shot doc %d: messages differ from lm-eval's\n got: %q\nwant: %q", r.NumFewshot, doc.DocID, req.Messages, doc.Messages)
				}
				if !slices.Equal(req.Gen.Stop, doc.Until) {
					t.Errorf("%d-shot doc %d: stop %q, lm-eval until %q", r.NumFewshot, doc.DocID, req.Gen.Stop, doc.Until)
				}
			}
		}
		if !ks[0] || !ks[3] || !ks[8] {
			t.Fatalf("goldens cover %v shots, want 0, 3 and 8", ks)
		}
	})
}
