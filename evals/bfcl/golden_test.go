package bfcl_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// goldenFile holds the digests TestRequestsAndScoresUnchanged compares
// with; POCKETEVAL_UPDATE_GOLDEN=1 rewrites it.
const goldenFile = "testdata/golden.sha256"

// TestRequestsAndScoresUnchanged guards every byte a BFCL task produces
// against changes made for speed: a digest per task of every request its
// samples render (chat and raw prompts, FC tools), and of every score
// (value, extracted calls, details with the checker's message) of the
// published v2 results, the handlers' conformance items and, for the v4
// files, calls made from each possible answer (its first alternatives)
// and the same answer as prompt-mode text.
func TestRequestsAndScoresUnchanged(t *testing.T) {
	data := sharedDir(t, "datasets")
	root := sharedDir(t, "conformance", "bfcl")
	ctx := context.Background()
	got := map[string]string{}
	sum := func(key string, f func(h hash.Hash)) {
		h := sha256.New()
		f(h)
		got[key] = hex.EncodeToString(h.Sum(nil))
	}
	write := func(h hash.Hash, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(append(b, '\n'))
	}
	loaded := map[string]*evals.Dataset{}
	for _, tk := range bfcl.Tasks() {
		name := tk.Info().Name
		ds, err := tk.Load(ctx, evals.LoadConfig{DataDir: data})
		if err != nil {
			t.Fatal(err)
		}
		loaded[name] = ds
		for _, chat := range []bool{true, false} {
			sum(fmt.Sprintf("prompts %s chat=%v", name, chat), func(h hash.Hash) {
				for _, s := range ds.Samples {
					req, err := tk.Prompt(ds, s, evals.PromptConfig{Chat: chat})
					if err != nil {
						write(h, err.Error())
						continue
					}
					// what a task makes of a request (not fields
					// the runner or a runtime may add)
					write(h, []any{req.ID, req.Task, req.Messages, req.Prompt, string(req.Tools), req.Gen.MaxTokens})
				}
			})
		}
	}
	score := func(h hash.Hash, tk evals.Task, s evals.Sample, out evals.Output) {
		sc, err := tk.Score(ctx, s, out)
		if err != nil {
			write(h, err.Error())
			return
		}
		write(h, []any{sc.Values, sc.Extracted, sc.ExtractionFailed, sc.Details})
	}
	// the published v2 results
	cats := map[string]string{"simple": "bfcl_v2_simple", "multiple_function": "bfcl_v2_multiple", "parallel_function": "bfcl_v2_parallel", "parallel_multiple_function": "bfcl_v2_parallel_multiple", "relevance": "bfcl_v2_irrelevance"}
	for _, model := range []string{"gpt-3.5-turbo-0125", "gpt-4o-2024-08-06-FC"} {
		for cat, name := range cats {
			if strings.HasSuffix(model, "-FC") {
				name += "_fc"
			}
			tk, ds := task(t, name), loaded[name]
			rt, err := replay.Open(filepath.Join(root, model, "result", cat+"_result.json"))
			if err != nil {
				t.Fatal(err)
			}
			sum("scores "+model+" "+name, func(h hash.Hash) {
				for _, s := range ds.Samples {
					resp, err := rt.Generate(ctx, runtime.Request{ID: s.ID, Task: name})
					if err != nil {
						t.Fatal(err)
					}
					score(h, tk, s, evals.Output{Raw: resp.Text, Text: resp.Text, ToolCalls: resp.ToolCalls, CallText: resp.Raw})
				}
			})
			rt.Close()
		}
	}
	// the handlers' items, scored as texts by their model's handler
	models, err := os.ReadDir(filepath.Join("testdata", "handlers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range models {
		if !m.IsDir() {
			continue
		}
		name := m.Name()
		if i := strings.IndexByte(name, '_'); i > 0 {
			if _, ok := scorer.HandlerForModel(scorer.V2, name[:i]+"/"+name[i+1:]); ok {
				name = name[:i] + "/" + name[i+1:]
			}
		}
		for cat, taskName := range cats {
			lines, err := os.ReadFile(filepath.Join("testdata", "handlers", m.Name(), cat+".jsonl"))
			if os.IsNotExist(err) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			tk, err := task(t, taskName).(*bfcl.Task).WithHandler(name)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]evals.Sample{}
			for _, s := range loaded[taskName].Samples {
				byID[s.ID] = s
			}
			sum("scores "+m.Name()+" "+taskName, func(h hash.Hash) {
				sc := bufio.NewScanner(bytes.NewReader(lines))
				sc.Buffer(nil, 64<<20)
				for sc.Scan() {
					var it struct {
						ID     string `json:"id"`
						Result any    `json:"result"`
					}
					if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
						t.Fatal(err)
					}
					text, ok := it.Result.(string)
					if !ok {
						b, _ := json.Marshal(it.Result)
						text = string(b)
					}
					score(h, tk, byID[it.ID], evals.Output{Raw: text, Text: text})
				}
			})
		}
	}
	// v4: each possible answer as calls (FC) and as text (prompt mode)
	for _, tk := range bfcl.Tasks() {
		name := tk.Info().Name
		if strings.HasPrefix(name, "bfcl_v2_") {
			continue
		}
		sum("scores answers "+name, func(h hash.Hash) {
			for _, s := range loaded[name].Samples {
				calls, text := answerCalls(t, s)
				out := evals.Output{Raw: text, Text: text}
				if strings.HasSuffix(name, "_fc") {
					out = evals.Output{ToolCalls: calls}
				}
				score(h, tk, s, out)
			}
		})
	}
	if os.Getenv("POCKETEVAL_UPDATE_GOLDEN") != "" {
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s  %s\n", got[k], k)
		}
		if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		digest, key, _ := strings.Cut(line, "  ")
		n++
		if got[key] != digest {
			t.Errorf("%s: digest %.12s, want %.12s", key, got[key], digest)
		}
	}
	if n != len(got) {
		t.Errorf("%d digests, %s has %d", len(got), goldenFile, n)
	}
}

// answerCalls makes a sample's possible answer (the first alternative of
// each parameter) into tool calls and into the text [f(a=1), ...].
func answerCalls(t *testing.T, s evals.Sample) ([]runtime.ToolCall, string) {
	gt, _ := s.Meta["ground_truth"].(string)
	if gt == "" {
		return nil, "[]"
	}
	var list []map[string]map[string][]any
	if err := json.Unmarshal([]byte(gt), &list); err != nil {
		var one map[string]map[string][]any
		if err := json.Unmarshal([]byte(gt), &one); err != nil {
			t.Fatalf("%s: ground truth: %v", s.ID, err)
		}
		list = append(list, one)
	}
	var calls []runtime.ToolCall
	var texts []string
	for _, c := range list {
		for fn, params := range c {
			keys := make([]string, 0, len(params))
			for k := range params {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			args := map[string]any{}
			var parts []string
			for _, k := range keys {
				if len(params[k]) == 0 || params[k][0] == "" {
					continue
				}
				args[k] = params[k][0]
				b, _ := json.Marshal(params[k][0])
				parts = append(parts, k+"="+string(b))
			}
			b, _ := json.Marshal(args)
			calls = append(calls, runtime.ToolCall{Name: strings.ReplaceAll(fn, ".", "_"), Arguments: string(b)})
			texts = append(texts, fn+"("+strings.Join(parts, ", ")+")")
		}
	}
	return calls, "[" + strings.Join(texts, ", ") + "]"
}
