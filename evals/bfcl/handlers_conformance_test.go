package bfcl_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/runtime/replay"
	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// TestHandlerConformance replays published BFCL result files of open
// models (testdata/handlers: see SOURCES.md) through --runtime replay with
// the handler BFCL's v2 model registry names for each model, and requires
// every item's valid and error_type to be those BFCL's own code (gorilla
// 4a64db34: eval_runner.py with the model's handler and checker.py) gives.
// BFCL_CONFORMANCE_DIR points it at a fuller set of the same layout.
func TestHandlerConformance(t *testing.T) {
	root := filepath.Join("testdata", "handlers")
	if d := os.Getenv("BFCL_CONFORMANCE_DIR"); d != "" {
		root = d
	}
	data := sharedDir(t, "datasets")
	tasks := map[string]string{"simple": "bfcl_v2_simple", "multiple_function": "bfcl_v2_multiple", "parallel_function": "bfcl_v2_parallel", "parallel_multiple_function": "bfcl_v2_parallel_multiple", "relevance": "bfcl_v2_irrelevance"}
	models, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	loaded := map[string]*evals.Dataset{}
	counts := map[string][2]int{}
	for _, m := range models {
		if !m.IsDir() {
			continue
		}
		// BFCL writes "org/model" as "org_model"
		name := m.Name()
		if i := strings.IndexByte(name, '_'); i > 0 {
			if _, ok := scorer.HandlerForModel(scorer.V2, name[:i]+"/"+name[i+1:]); ok {
				name = name[:i] + "/" + name[i+1:]
			}
		}
		h, ok := scorer.HandlerForModel(scorer.V2, name)
		if !ok {
			t.Fatalf("%s: not in BFCL v2's handler map", name)
		}
		for cat, taskName := range tasks {
			path := filepath.Join(root, m.Name(), cat+".jsonl")
			lines, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			base := task(t, taskName).(*bfcl.Task)
			tk, err := base.WithHandler(name)
			if err != nil {
				t.Fatal(err)
			}
			ds := loaded[taskName]
			if ds == nil {
				if ds, err = tk.Load(context.Background(), evals.LoadConfig{DataDir: data}); err != nil {
					t.Fatal(err)
				}
				loaded[taskName] = ds
			}
			byID := map[string]evals.Sample{}
			for _, s := range ds.Samples {
				byID[s.ID] = s
			}
			type item struct {
				ID        string          `json:"id"`
				Result    json.RawMessage `json:"result"`
				Valid     bool            `json:"valid"`
				ErrorType string          `json:"error_type"`
			}
			var items []item
			var preds bytes.Buffer
			sc := bufio.NewScanner(bytes.NewReader(lines))
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var it item
				if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				items = append(items, it)
				line, _ := json.Marshal(map[string]json.RawMessage{"id": json.RawMessage(`"` + it.ID + `"`), "result": it.Result})
				preds.Write(append(line, '\n'))
			}
			pf := filepath.Join(t.TempDir(), "preds.jsonl")
			if err := os.WriteFile(pf, preds.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			rt, err := replay.Open(pf)
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				s, ok := byID[it.ID]
				if !ok {
					t.Fatalf("%s: no sample %s", path, it.ID)
				}
				req, err := tk.Prompt(ds, s, evals.PromptConfig{Chat: true})
				if err != nil {
					t.Fatal(err)
				}
				resp, err := rt.Generate(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				score, err := tk.Score(context.Background(), s, evals.Output{Text: resp.Text, ToolCalls: resp.ToolCalls})
				if err != nil {
					t.Fatal(err)
				}
				got, _ := score.Details["error_type"].(string)
				c := counts[h.Name]
				c[0]++
				if score.Details["valid"] != it.Valid || got != it.ErrorType {
					c[1]++
					t.Errorf("%s %s %s: valid=%v %s; BFCL: valid=%v %s (%.300s)", name, cat, it.ID, score.Details["valid"], got, it.Valid, it.ErrorType, score.Details["error"])
				}
				counts[h.Name] = c
			}
			rt.Close()
		}
	}
	var fams []string
	for f := range counts {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		t.Logf("handler %s: %d items, %d differ", f, counts[f][0], counts[f][1])
	}
}
