package bfcl_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

func task(t testing.TB, name string) evals.Task {
	t.Helper()
	for _, x := range bfcl.Tasks() {
		if x.Info().Name == name {
			return x
		}
	}
	t.Fatalf("no task %s", name)
	return nil
}

func sharedDir(t testing.TB, parts ...string) string {
	p := filepath.Join(append([]string{"..", "..", "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not available", p)
	}
	return p
}

// TestReplayPublished runs the v2 tasks with --runtime replay on BFCL's
// published result files and requires each sample's valid and error_type
// to be the official score file's.
func TestReplayPublished(t *testing.T) {
	root := sharedDir(t, "conformance", "bfcl")
	data := sharedDir(t, "datasets")
	files := map[string]string{"simple": "bfcl_v2_simple", "multiple_function": "bfcl_v2_multiple", "parallel_function": "bfcl_v2_parallel", "parallel_multiple_function": "bfcl_v2_parallel_multiple", "relevance": "bfcl_v2_irrelevance"}
	for _, model := range []string{"gpt-3.5-turbo-0125", "gpt-4o-2024-08-06-FC"} {
		for cat, name := range files {
			if strings.HasSuffix(model, "-FC") {
				name += "_fc"
			}
			tk := task(t, name)
			ds, err := tk.Load(context.Background(), evals.LoadConfig{DataDir: data})
			if err != nil {
				t.Fatal(err)
			}
			rt, err := replay.Open(filepath.Join(root, model, "result", cat+"_result.json"))
			if err != nil {
				t.Fatal(err)
			}
			official := map[int]string{}
			f, _ := os.Open(filepath.Join(root, model, "score", cat+"_score.json"))
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 64<<20)
			sc.Scan()
			for sc.Scan() {
				var x struct {
					ID        int    `json:"id"`
					ErrorType string `json:"error_type"`
				}
				_ = json.Unmarshal(sc.Bytes(), &x)
				official[x.ID-1] = x.ErrorType
			}
			f.Close()
			for i, s := range ds.Samples {
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
				want, bad := official[i]
				got, _ := score.Details["error_type"].(string)
				if score.Details["valid"] != !bad || got != want {
					t.Errorf("%s %s %s: valid=%v %s; official valid=%v %s", model, name, s.ID, score.Details["valid"], got, !bad, want)
				}
			}
			rt.Close()
		}
	}
}

// TestPrompts: prompt mode lists the functions in BFCL's system prompt;
// function-calling mode sends OpenAI tools with dots written as "_".
func TestPrompts(t *testing.T) {
	data := sharedDir(t, "datasets")
	tk := task(t, "bfcl_simple")
	ds, err := tk.Load(context.Background(), evals.LoadConfig{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	req, err := tk.Prompt(ds, ds.Samples[1], evals.PromptConfig{Chat: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := req.Messages[0].Content
	if req.Messages[0].Role != "system" || !strings.HasPrefix(sys, "You are an expert in composing functions.You are given a question") ||
		!strings.Contains(sys, "Here is a list of functions in json format that you can invoke.\n[\n    {\n        \"name\": \"math.factorial\",") ||
		!strings.Contains(sys, "Note that the provided function is in Python 3 syntax.") {
		t.Errorf("system prompt:\n%s", sys)
	}
	fc := task(t, "bfcl_simple_fc")
	req, err = fc.Prompt(ds, ds.Samples[1], evals.PromptConfig{Chat: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(req.Tools), `"name": "math_factorial"`) || !strings.Contains(string(req.Tools), `"type": "object"`) || len(req.Messages) != 1 {
		t.Errorf("tools %s, messages %+v", req.Tools, req.Messages)
	}
}

// BenchmarkScore scores 1,000 replayed v2 parallel-multiple answers per
// iteration (decode, check, details).
func BenchmarkScore1000(b *testing.B) {
	root := sharedDir(b, "conformance", "bfcl")
	tk := task(b, "bfcl_v2_parallel_multiple")
	ds, err := tk.Load(context.Background(), evals.LoadConfig{DataDir: sharedDir(b, "datasets")})
	if err != nil {
		b.Fatal(err)
	}
	rt, err := replay.Open(filepath.Join(root, "gpt-3.5-turbo-0125", "result", "parallel_multiple_function_result.json"))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	outs := make([]evals.Output, len(ds.Samples))
	for i, s := range ds.Samples {
		req, _ := tk.Prompt(ds, s, evals.PromptConfig{Chat: true})
		resp, err := rt.Generate(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		outs[i] = evals.Output{Text: resp.Text}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range 1000 {
			if _, err := tk.Score(context.Background(), ds.Samples[i%len(outs)], outs[i%len(outs)]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
