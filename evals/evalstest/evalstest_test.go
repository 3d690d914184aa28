package evalstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// task is a small multiple-choice task read from <data>/toy/data.txt (one
// question per line); its fields switch on the violations Check must find.
type task struct {
	dupIDs      bool   // two samples share an id
	plainMiss   bool   // a missing file is a plain error
	extraMetric bool   // Score returns a metric Info does not list
	scoreErr    bool   // Score fails on an empty response
	primary     string // overrides the primary metric
	bothForms   bool   // Prompt sets messages and a raw prompt
	loglikN     int    // log-likelihood requests per sample (0: one per choice)
}

func (t task) Info() evals.TaskInfo {
	p := "acc"
	if t.primary != "" {
		p = t.primary
	}
	return evals.TaskInfo{Name: "toy", Version: "1", DatasetFiles: []string{"toy/data.txt"}, PrimaryMetric: p, Metrics: []string{"acc"}}
}

func (t task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	path := filepath.Join(cfg.DataDir, "toy", "data.txt")
	if t.plainMiss {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("no data: %w", err)
		}
	}
	data, sum, err := evals.ReadDataFile("toy", path, "made up")
	if err != nil {
		return nil, err
	}
	d := &evals.Dataset{Files: map[string]string{path: sum}}
	for i, q := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		id := fmt.Sprint(i)
		if t.dupIDs {
			id = "same"
		}
		d.Samples = append(d.Samples, evals.Sample{ID: id, Input: q, Target: "A", Choices: []string{"yes", "no"}})
	}
	return d, nil
}

func (t task) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	if cfg.Chat || t.bothForms {
		r := runtime.Request{Messages: []runtime.Message{{Role: "user", Content: s.Input}}}
		if t.bothForms {
			r.Prompt = s.Input
		}
		return r, nil
	}
	return runtime.Request{Prompt: s.Input}, nil
}

func (t task) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	if t.scoreErr && out.Text == "" && out.Loglik == nil {
		return evals.Score{}, errors.New("cannot score an empty response")
	}
	v := map[string]float64{"acc": 0}
	if out.Text == s.Target || (len(out.Loglik) > 0 && out.Loglik[0].LogProb >= out.Loglik[len(out.Loglik)-1].LogProb) {
		v["acc"] = 1
	}
	if t.extraMetric {
		v["bonus"] = 1
	}
	return evals.Score{Values: v}, nil
}

func (t task) LoglikRequests(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) ([]runtime.LoglikRequest, error) {
	n := len(s.Choices)
	if t.loglikN > 0 {
		n = t.loglikN
	}
	out := make([]runtime.LoglikRequest, n)
	for i := range out {
		out[i] = runtime.LoglikRequest{Context: s.Input, Continuation: fmt.Sprintf(" %c", 'A'+i)}
	}
	return out, nil
}

func dataDir(t *testing.T) string {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "toy"), 0o755)
	os.WriteFile(filepath.Join(dir, "toy", "data.txt"), []byte("q1\nq2\nq3\n"), 0o644)
	return dir
}

func TestConformingTaskPasses(t *testing.T) {
	t.Parallel()
	if err := Check(context.Background(), task{}, Options{DataDir: dataDir(t)}); err != nil {
		t.Errorf("a conforming task failed:\n%v", err)
	}
	// Without data only the data-free rules run, and the lack is said.
	if err := Check(context.Background(), task{}, Options{DataDir: t.TempDir()}); !errors.Is(err, ErrNoData) {
		t.Errorf("without data: err = %v, want ErrNoData", err)
	}
}

func TestViolationsAreFound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		task task
		want string
	}{
		{"duplicate ids", task{dupIDs: true}, `load: sample ids must be unique; "same" appears twice`},
		{"plain missing-data error", task{plainMiss: true}, "missing data: Load from an empty data directory must return an *evals.MissingDataError"},
		{"unlisted metric", task{extraMetric: true}, `score: Score must return only metrics listed in Info().Metrics [acc]; sample 0 has "bonus"`},
		{"score error", task{scoreErr: true}, "score: scoring sample 0"},
		{"primary not produced", task{primary: "f1"}, `metrics: the primary metric "f1" must be returned by Score or computed by Aggregate`},
		{"two prompt forms", task{bothForms: true}, "prompt: sample 0 (chat=true) must render as exactly one of chat messages and a raw prompt"},
		{"loglik requests", task{loglikN: 3}, "log-likelihood: sample 0 must have one request per choice (2); got 3"},
	} {
		err := Check(context.Background(), c.task, Options{DataDir: dataDir(t)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v\nwant it to contain %q", c.name, err, c.want)
		}
	}
}

func TestRepeatedViolationsAreCounted(t *testing.T) {
	t.Parallel()
	err := Check(context.Background(), task{dupIDs: true}, Options{DataDir: dataDir(t)})
	if err == nil || !strings.Contains(err.Error(), "(and 1 more like it)") {
		t.Errorf("err = %v, want the second duplicate counted, not repeated", err)
	}
}
