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
// another directory of result/verdict pairs (the whole published files):
// <model>.<fc|prompt>.<category>.jsonl, a BFCL result file, with either
// <model>.<fc|prompt>.<category>.verdicts.jsonl or BFCL's own score file
// of the run as published, <model>.<fc|prompt>.<category>.score.json (its
// first line the summary, then one line per failed entry; an entry it does
// not list passed).
func TestReplayConformance(t *testing.T) {
	dir := filepath.Join("testdata", "conformance")
	if d := os.Getenv("POCKETEVAL_BFCLMT_CONFORMANCE"); d != "" {
		dir = d
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.verdicts.jsonl"))
	scores, err2 := filepath.Glob(filepath.Join(dir, "*.score.json"))
	files = append(files, scores...)
	if err != nil || err2 != nil || len(files) == 0 {
		t.Fatalf("no verdict or score files in %s: %v %v", dir, err, err2)
	}
	total, matched := 0, 0
	for _, vf := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(vf), ".verdicts.jsonl"), ".score.json")
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
			var want []officialVerdict
			if strings.HasSuffix(vf, ".score.json") {
				want = scoreVerdicts(t, filepath.Join(dir, name+".jsonl"), vf)
			} else {
				want = readVerdicts(t, vf)
			}
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

// scoreVerdicts are the verdicts BFCL's score file gives the entries of
// its result file: the failed ones it lists (valid false, error.error_type),
// every other entry valid.
func scoreVerdicts(t *testing.T, resultPath, scorePath string) []officialVerdict {
	t.Helper()
	failed := map[string]string{}
	each := func(path string, f func(n int, line []byte)) {
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 256<<20)
		for n := 1; sc.Scan(); n++ {
			if len(strings.TrimSpace(sc.Text())) > 0 {
				f(n, sc.Bytes())
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	each(scorePath, func(n int, line []byte) {
		var l struct {
			ID    string `json:"id"`
			Valid *bool  `json:"valid"`
			Error struct {
				ErrorType string `json:"error_type"`
			} `json:"error"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%s:%d: %v", scorePath, n, err)
		}
		if n == 1 && l.ID == "" {
			return // the summary
		}
		if l.ID == "" || l.Valid == nil || *l.Valid || l.Error.ErrorType == "" {
			t.Fatalf("%s:%d: not a failed entry with an id and error.error_type", scorePath, n)
		}
		failed[l.ID] = l.Error.ErrorType
	})
	var out []officialVerdict
	each(resultPath, func(n int, line []byte) {
		var l struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(line, &l); err != nil || l.ID == "" {
			t.Fatalf("%s:%d: no id: %v", resultPath, n, err)
		}
		et, bad := failed[l.ID]
		out = append(out, officialVerdict{ID: l.ID, Valid: !bad, ErrorType: et})
		delete(failed, l.ID)
	})
	if len(failed) > 0 {
		t.Fatalf("%s lists %d entries %s does not have", scorePath, len(failed), resultPath)
	}
	return out
}

// outputOf is the Output the runner gives Score for a replayed response.
func outputOf(r runtime.Response) evals.Output {
	return evals.Output{Text: r.Text, Raw: r.Text, FinishReason: r.FinishReason, ToolCalls: r.ToolCalls}
}
