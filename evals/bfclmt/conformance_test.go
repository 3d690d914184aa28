package bfclmt

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

// officialVerdict is a line of a testdata/conformance/*.verdicts.jsonl
// file: BFCL's own eval runner's verdict (see testdata/conformance/SOURCES.md).
type officialVerdict struct {
	ID        string `json:"id"`
	Valid     bool   `json:"valid"`
	ErrorType string `json:"error_type"`
}

// TestReplayConformance replays published BFCL multi-turn result files
// (and prompt-mode results derived from them) through the replay runtime
// and the tasks' scoring, and requires BFCL's own verdict for every
// entry: validity and error type. POCKETEVAL_BFCLMT_CONFORMANCE names
// another directory of result/verdict pairs (the whole published files).
func TestReplayConformance(t *testing.T) {
	dir := filepath.Join("testdata", "conformance")
	if d := os.Getenv("POCKETEVAL_BFCLMT_CONFORMANCE"); d != "" {
		dir = d
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.verdicts.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no verdict files in %s: %v", dir, err)
	}
	total, matched := 0, 0
	for _, vf := range files {
		name := strings.TrimSuffix(filepath.Base(vf), ".verdicts.jsonl")
		// <model>.<fc|prompt>.<category>
		parts := strings.Split(name, ".")
		if len(parts) != 3 {
			t.Fatalf("%s: name is not <model>.<fc|prompt>.<category>", vf)
		}
		fc, category := parts[1] == "fc", parts[2]
		t.Run(name, func(t *testing.T) {
			task, ds := loadTask(t, category, fc)
			rt, err := replay.Open(filepath.Join(dir, name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			want := readVerdicts(t, vf)
			if testing.Short() && len(want) > 4 {
				want = want[:4]
			}
			var mu sync.Mutex
			var wg sync.WaitGroup
			sem := make(chan struct{}, 2)
			for _, w := range want {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					s := sampleByID(t, ds, w.ID)
					resp, err := rt.Generate(context.Background(), runtime.Request{ID: w.ID, Task: task.Info().Name})
					if err != nil {
						t.Error(err)
						return
					}
					out, err := task.Score(context.Background(), s, outputOf(resp))
					if err != nil {
						t.Errorf("%s: %v", w.ID, err)
						return
					}
					got := officialVerdict{ID: w.ID, Valid: out.Values["accuracy"] == 1}
					got.ErrorType, _ = out.Details["error_type"].(string)
					mu.Lock()
					defer mu.Unlock()
					total++
					if got == w {
						matched++
					} else {
						t.Errorf("%s: got valid %v %q, BFCL says valid %v %q (%v)", w.ID, got.Valid, got.ErrorType, w.Valid, w.ErrorType, out.Details["error"])
					}
				}()
			}
			wg.Wait()
		})
	}
	t.Logf("%d of %d verdicts match BFCL's", matched, total)
}

func readVerdicts(t *testing.T, path string) []officialVerdict {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []officialVerdict
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var v officialVerdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil || v.ID == "" {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, v)
	}
	return out
}

// outputOf is the Output the runner gives Score for a replayed response.
func outputOf(r runtime.Response) evals.Output {
	return evals.Output{Text: r.Text, Raw: r.Text, FinishReason: r.FinishReason, ToolCalls: r.ToolCalls}
}
