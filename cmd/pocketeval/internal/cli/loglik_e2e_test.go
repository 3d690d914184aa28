package cli

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// Task files of output_type loglikelihood and loglikelihood_rolling run on
// llama.cpp: perplexities in the summary, one log-likelihood per sample,
// and --mode gen refused before anything runs.
func TestE2ELoglikOutputTypes(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	d := filepath.Join("..", "..", "..", "..", "evals", "taskfile", "testdata", "lmeval")
	tasks := filepath.Join(d, "pocketeval_rolling.yaml") + "," + filepath.Join(d, "pocketeval_loglik.yaml")
	out := filepath.Join(t.TempDir(), "run")
	if code, o, e := runReal(t, "run", "--runtime", "llamacpp", "--model", model, "--tasks", tasks, "--data-dir", filepath.Join(d, "data"), "--out", out); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	s, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	roll, ll := s.Tasks["pocketeval_rolling"], s.Tasks["pocketeval_loglik"]
	if roll == nil || ll == nil || roll.PrimaryMetric != "word_perplexity" || ll.PrimaryMetric != "perplexity" {
		t.Fatalf("summary %+v", s.Tasks)
	}
	bpb, bp := roll.Metrics["bits_per_byte"].Mean, roll.Metrics["byte_perplexity"].Mean
	if !(bpb > 0) || math.Abs(math.Exp2(bpb)-bp) > 1e-9*bp || !(ll.Metrics["perplexity"].Mean > 1) {
		t.Errorf("bits_per_byte %v, byte_perplexity %v, perplexity %v", bpb, bp, ll.Metrics["perplexity"].Mean)
	}
	recs, _, err := results.ReadTaskSamples(out, "pocketeval_rolling")
	if err != nil || len(recs) != 5 || len(recs[4].LoglikResults) != 1 || recs[4].LoglikResults[0].Tokens < 300 {
		t.Fatalf("records %v %v", recs, err)
	}
	if code, _, _ := runReal(t, "run", "--runtime", "llamacpp", "--model", model, "--tasks", tasks, "--mode", "gen", "--data-dir", filepath.Join(d, "data"), "--out", out+"2"); code == 0 {
		t.Error("--mode gen accepted for a loglikelihood_rolling task")
	}
}
