package bfclmt

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// loadTask loads a category's task with the test pool.
func loadTask(t *testing.T, category string, fc bool) (*Task, *evals.Dataset) {
	t.Helper()
	pool, _ := codetest.Pool(t)
	task := (&Task{category: category, fc: fc}).WithExecutor(pool)
	ds, err := task.Load(context.Background(), evals.LoadConfig{DataDir: sharedtest.Datasets(t)})
	if err != nil {
		t.Fatal(err)
	}
	return task, ds
}

// TestGroundTruthIsValid: BFCL's checker, run on the ground truth's own
// calls (one step per turn), accepts them.
func TestGroundTruthIsValid(t *testing.T) {
	for _, c := range Categories {
		t.Run(c, func(t *testing.T) {
			task, ds := loadTask(t, c, false)
			for _, s := range ds.Samples[:3] {
				e, _ := sampleEntry(s)
				decoded := make([][][]string, len(e.groundTruth))
				for i, gt := range e.groundTruth {
					decoded[i] = [][]string{}
					if len(gt) > 0 {
						decoded[i] = [][]string{gt}
					}
				}
				v, err := e.env.check(context.Background(), task.exec, e.info, decoded, e.groundTruth)
				if err != nil {
					t.Fatal(err)
				}
				if !v.Valid {
					b, _ := json.Marshal(v)
					t.Errorf("%s: %s", s.ID, b)
				}
			}
		})
	}
}

// scripted is a model that gives its answers in order, recording the
// requests it was sent.
type scripted struct {
	answers []runtime.Response
	reqs    []runtime.Request
}

func (m *scripted) gen(_ context.Context, req runtime.Request) (runtime.Response, error) {
	m.reqs = append(m.reqs, req)
	if len(m.answers) == 0 {
		return runtime.Response{Text: "I am done."}, nil
	}
	r := m.answers[0]
	m.answers = m.answers[1:]
	return r, nil
}

func sampleByID(t *testing.T, ds *evals.Dataset, id string) evals.Sample {
	t.Helper()
	for _, s := range ds.Samples {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no sample %s", id)
	return evals.Sample{}
}

// TestConversePrompt runs multi_turn_base_1 in prompt mode with a model
// that answers each turn with the ground truth's calls, then with text:
// the calls run on BFCL's backends, their results come back as BFCL's
// user message, text ends the turn, and the checker accepts the result.
func TestConversePrompt(t *testing.T) {
	task, ds := loadTask(t, "multi_turn_base", false)
	s := sampleByID(t, ds, "multi_turn_base_1")
	m := &scripted{answers: []runtime.Response{
		{Text: "[ls(a=True)]"}, {Text: "Listed."},
		{Text: "[cd(folder='workspace'), mv(source='log.txt',destination='archive')]"}, {Text: "Moved."},
		{Text: "```\n[cd(folder='archive')]\n```"}, {Text: "grep(file_name='log.txt',pattern='Error')"}, {Text: "Found."},
		{Text: "[tail(file_name='log.txt',lines=20)]"}, {Text: "Shown."},
	}}
	conv, err := task.Converse(context.Background(), ds, s, evals.PromptConfig{Chat: true}, m.gen)
	if err != nil {
		t.Fatal(err)
	}
	want := `[["[ls(a=True)]","Listed."],["[cd(folder='workspace'), mv(source='log.txt',destination='archive')]","Moved."],["` +
		"```\\n[cd(folder='archive')]\\n```" + `","grep(file_name='log.txt',pattern='Error')","Found."],["[tail(file_name='log.txt',lines=20)]","Shown."]]`
	if conv.Output.Text != want {
		t.Errorf("result\n%s\nwant\n%s", conv.Output.Text, want)
	}
	if conv.Requests != 9 || len(m.reqs) != 9 {
		t.Errorf("%d requests, want 9", conv.Requests)
	}
	first := m.reqs[0].Messages
	if len(first) != 2 || first[0].Role != "system" || !strings.Contains(first[0].Content, "Note that the provided function is in Python 3 syntax.") || first[1].Role != "user" {
		t.Errorf("first request: %+v", first)
	}
	// The second request feeds the first call's result back as BFCL's
	// repr of [{"role": "tool", "name": call, "content": result}].
	fb := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]
	if fb.Role != "user" || !strings.HasPrefix(fb.Content, `[{'role': 'tool', 'name': 'ls(a=True)', 'content': '{"current_directory_content": [`) {
		t.Errorf("feedback message: %+v", fb)
	}
	sc, err := task.Score(context.Background(), s, conv.Output)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Values["accuracy"] != 1 {
		t.Errorf("score %v, details %v", sc.Values, sc.Details)
	}
	// Replayed from its text alone (resume, verify, --runtime replay),
	// the result scores the same.
	sc2, err := task.Score(context.Background(), s, evals.Output{Text: conv.Output.Text})
	if err != nil || !reflect.DeepEqual(sc, sc2) {
		t.Errorf("re-scored %+v, %v; want %+v", sc2, err, sc)
	}
}

// TestConverseFC runs multi_turn_miss_func_0 in function-calling mode:
// the held-out function appears as a tool only at the turn BFCL reveals
// it, with BFCL's user message, and tool results answer each call by id.
func TestConverseFC(t *testing.T) {
	task, ds := loadTask(t, "multi_turn_miss_func", true)
	s := sampleByID(t, ds, "multi_turn_miss_func_0")
	e, _ := sampleEntry(s)
	var revealAt int
	var held string
	for turn, fs := range e.missed {
		revealAt = turn
		held = jinja.Str(mustGet(fs[0].(*jinja.Dict), "name"))
	}
	m := &scripted{answers: []runtime.Response{
		{ToolCalls: []runtime.ToolCall{{Name: "cd", Arguments: `{"folder": "document"}`}, {Name: "mkdir", Arguments: `{"dir_name": "temp"}`}}},
	}}
	conv, err := task.Converse(context.Background(), ds, s, evals.PromptConfig{Chat: true}, m.gen)
	if err != nil {
		t.Fatal(err)
	}
	hasTool := func(req runtime.Request, name string) bool {
		return strings.Contains(string(req.Tools), `"name": "`+name+`"`)
	}
	turn := 0
	for i, req := range m.reqs {
		last := req.Messages[len(req.Messages)-1]
		if i > 0 && last.Role == "user" {
			turn++
		}
		if got := hasTool(req, held); got != (turn >= revealAt) {
			t.Errorf("request %d (turn %d): tool %s offered %v; BFCL reveals it at turn %d", i, turn, held, got, revealAt)
		}
		if turn == revealAt && last.Role == "user" && last.Content != additionalFC {
			t.Errorf("reveal turn message %q", last.Content)
		}
	}
	tools := m.reqs[1].Messages[len(m.reqs[1].Messages)-2:]
	if tools[0].Role != "tool" || tools[0].ToolCallID != "call_0_0_0" || tools[1].ToolCallID != "call_0_0_1" || tools[1].Content != "None" {
		t.Errorf("tool messages: %+v", tools)
	}
	if !strings.HasPrefix(conv.Output.Text, `[[[{"cd":"{\"folder\": \"document\"}"},{"mkdir":"{\"dir_name\": \"temp\"}"}],"I am done."],`) {
		t.Errorf("result %s", conv.Output.Text)
	}
	sc, err := task.Score(context.Background(), s, conv.Output)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Values["accuracy"] != 0 || sc.Details["error_type"] != "multi_turn:instance_state_mismatch" {
		t.Errorf("score %v %v", sc.Values, sc.Details)
	}
}

func mustGet(d *jinja.Dict, k string) any {
	v, _ := d.Get(k)
	return v
}

// TestStepLimit: a model that never stops calling is forced to quit after
// MAXIMUM_STEP_LIMIT + 1 steps, ending the conversation; BFCL's runner
// then fails it as force-terminated.
func TestStepLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("21 sandbox programs")
	}
	task, ds := loadTask(t, "multi_turn_base", false)
	s := sampleByID(t, ds, "multi_turn_base_1")
	n := 0
	gen := func(context.Context, runtime.Request) (runtime.Response, error) {
		n++
		return runtime.Response{Text: "[pwd()]"}, nil
	}
	conv, err := task.Converse(context.Background(), ds, s, evals.PromptConfig{Chat: true}, gen)
	if err != nil {
		t.Fatal(err)
	}
	if n != MaxSteps+1 {
		t.Errorf("%d requests, want %d", n, MaxSteps+1)
	}
	sc, err := task.Score(context.Background(), s, conv.Output)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Details["error_type"] != "multi_turn:force_terminated" {
		t.Errorf("details %v", sc.Details)
	}
}
