package taskfile

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// loglikGolden is testdata/lmeval/golden_loglik/*.json
// (make_loglik_renders.py): lm-eval's own requests for pocketeval's task
// files of the two log-likelihood output types.
type loglikGolden struct {
	Task    string `json:"task"`
	Seed    int64  `json:"seed"`
	Renders []struct {
		NumFewshot int `json:"num_fewshot"`
		Docs       []struct {
			DocID       int    `json:"doc_id"`
			Target      string `json:"target"`
			RequestType string `json:"request_type"`
			Words       int    `json:"words"`
			Bytes       int    `json:"bytes"`
			Requests    []struct {
				Context      *string `json:"context"`
				Continuation *string `json:"continuation"`
				Text         *string `json:"text"`
			} `json:"requests"`
		} `json:"docs"`
	} `json:"renders"`
}

// The requests of loglikelihood and loglikelihood_rolling task files equal
// lm-eval's byte for byte, zero- and few-shot, and the word and byte
// counts its process_results uses equal pocketeval's.
func TestLMEvalLoglikRendersMatch(t *testing.T) {
	root := t.TempDir()
	writeLMEvalData(t, root)
	for _, name := range []string{"pocketeval_loglik", "pocketeval_rolling"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "lmeval", "golden_loglik", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var g loglikGolden
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			parsed, err := Parse(filepath.Join("testdata", "lmeval", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			task, ok := parsed.(*LoglikTask)
			if !ok {
				t.Fatalf("Parse gave %T", parsed)
			}
			for _, r := range g.Renders {
				d, err := task.Load(context.Background(), evals.LoadConfig{DataDir: root, NumFewshot: r.NumFewshot, Seed: g.Seed})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Docs) != len(d.Samples) || len(r.Docs) < 5 {
					t.Fatalf("%d documents, lm-eval %d", len(d.Samples), len(r.Docs))
				}
				for _, doc := range r.Docs {
					s := d.Samples[doc.DocID]
					reqs, err := task.LoglikRequests(d, s, evals.PromptConfig{NumFewshot: r.NumFewshot})
					if err != nil || len(reqs) != 1 || len(doc.Requests) != 1 {
						t.Fatalf("doc %d: %v %v", doc.DocID, reqs, err)
					}
					want := doc.Requests[0]
					switch doc.RequestType {
					case "loglikelihood":
						if task.Rolling() || reqs[0].Context != *want.Context || reqs[0].Continuation != *want.Continuation {
							t.Errorf("%d-shot doc %d: %q + %q, lm-eval %q + %q", r.NumFewshot, doc.DocID, reqs[0].Context, reqs[0].Continuation, *want.Context, *want.Continuation)
						}
					case "loglikelihood_rolling":
						if !task.Rolling() || reqs[0].Context != "" || reqs[0].Continuation != *want.Text {
							t.Errorf("doc %d: text %q, lm-eval %q", doc.DocID, reqs[0].Continuation, *want.Text)
						}
						sc, err := task.Score(context.Background(), s, evals.Output{Loglik: []runtime.LoglikResult{{LogProb: -1}}})
						if err != nil {
							t.Fatal(err)
						}
						if sc.Details["words"] != doc.Words || sc.Details["bytes"] != doc.Bytes {
							t.Errorf("doc %d: %v words, %v bytes; lm-eval %d, %d", doc.DocID, sc.Details["words"], sc.Details["bytes"], doc.Words, doc.Bytes)
						}
					default:
						t.Fatalf("request type %q", doc.RequestType)
					}
				}
			}
		})
	}
}

// The aggregations are lm-eval's perplexity, weighted_perplexity and
// bits_per_byte.
func TestLoglikAggregate(t *testing.T) {
	roll, err := Parse(filepath.Join("testdata", "lmeval", "pocketeval_rolling.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := []evals.SampleResult{
		{Score: evals.Score{Details: map[string]any{"loglikelihood": -10.0, "words": 4, "bytes": 20}}},
		{Score: evals.Score{Details: map[string]any{"loglikelihood": -20.0, "words": 6, "bytes": 30}}},
	}
	agg := roll.(evals.Aggregator).Aggregate(res)
	for k, want := range map[string]float64{"word_perplexity": math.Exp(3), "byte_perplexity": math.Exp(0.6), "bits_per_byte": 0.6 / math.Ln2} {
		if math.Abs(agg.Metrics[k]-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, agg.Metrics[k], want)
		}
	}
	if got := roll.Info().PrimaryMetric; got != "word_perplexity" {
		t.Errorf("primary metric %q", got)
	}
	ll, err := Parse(filepath.Join("testdata", "lmeval", "pocketeval_loglik.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	agg = ll.(evals.Aggregator).Aggregate(res)
	if want := math.Exp(15); math.Abs(agg.Metrics["perplexity"]-want) > 1e-9*want {
		t.Errorf("perplexity %v, want %v", agg.Metrics["perplexity"], want)
	}
	if _, err := ll.(*LoglikTask).WithMode(ModeGen); err == nil {
		t.Error("gen mode accepted")
	}
	for _, c := range []struct {
		in   string
		want int
	}{{"a b", 2}, {" a ", 3}, {"", 1}, {"a\u3000b\x1cc", 3}, {"a  \t b", 2}} {
		if got := countWords(c.in); got != c.want {
			t.Errorf("countWords(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
