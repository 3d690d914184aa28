// Package bfclmt provides BFCL's multi-turn categories as tasks:
// bfcl_multi_turn_base, bfcl_multi_turn_miss_func,
// bfcl_multi_turn_miss_param and bfcl_multi_turn_long_context (prompt
// mode) and the same with "_fc" (function-calling mode), on BFCL v4's
// files at gorilla 6ea57973.
//
// A sample is a conversation, run as BFCL's base handler runs it
// (inference_multi_turn_prompting / _FC): turn by turn, the model is
// asked until it stops calling functions, at most MAXIMUM_STEP_LIMIT + 1
// (21) times a turn; every decoded call list is executed on BFCL's own
// backends (the data directory's multi_turn_env, run inside the sandbox)
// and the results are fed back: in prompt mode as one user message
// holding repr([{"role": "tool", "name": call, "content": result}]), in
// function-calling mode as one tool message per call. A turn listed in
// miss_func's missed_function reveals the held-out functions: in prompt
// mode in the user message ("{functions}\nI have updated some more
// functions you can choose from. What about now?"), in function-calling
// mode as new tools with that message. A step whose answer does not decode
// to calls ends the turn; a turn that hits the step limit ends the
// conversation (BFCL's force quit).
//
// The backends keep no state between programs: each execution replays the
// conversation's earlier calls on fresh instances, then runs the new
// ones, so a conversation's state is always rebuilt from its recorded
// calls. The record's response is the conversation's result in BFCL's
// result-file form (a list of turns, each a list of steps: the model's
// text in prompt mode, its [{name: arguments}] or text in function-calling
// mode); it is scored by BFCL's multi_turn_checker (state and execution
// results compared with the ground truth's, turn by turn), run inside the
// sandbox. BFCL's result files replay as they are
// (--runtime replay --predictions BFCL_v4_multi_turn_base_result.json).
package bfclmt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/sandbox"
	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

const source = "https://github.com/ShishirPatil/gorilla/tree/6ea57973c7a6097fd7c5915698c54c17c5b1b6c8/berkeley-function-call-leaderboard (see bfcl/SOURCES in the data directory)"

// MaxSteps is BFCL's MAXIMUM_STEP_LIMIT (constants/default_prompts.py):
// after more executed steps than this in one turn, the model is forced
// to quit.
const MaxSteps = 20

// The user messages of a turn that reveals held-out functions
// (DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC / _PROMPTING).
const (
	additionalFC     = "I have updated some more functions you can choose from. What about now?"
	additionalPrompt = "%s\n" + additionalFC
)

// Categories are BFCL's multi-turn categories, in the leaderboard's
// order.
var Categories = []string{"multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"}

// Options configure the tasks.
type Options struct {
	// NewExecutor builds the sandbox the backends run in when the runner
	// calls Setup (code.NewSandbox for pocketeval's runs).
	NewExecutor func(ctx context.Context, env evals.Env) (sandbox.Executor, io.Closer, error)
}

// Task is one multi-turn category in one mode.
type Task struct {
	category string
	fc       bool
	opts     Options
	exec     sandbox.Executor
}

var (
	_ evals.Task           = (*Task)(nil)
	_ evals.Setupper       = (*Task)(nil)
	_ evals.Conversational = (*Task)(nil)
)

// Tasks returns the eight multi-turn tasks.
func Tasks(opts Options) []evals.Task {
	var out []evals.Task
	for _, fc := range []bool{false, true} {
		for _, c := range Categories {
			out = append(out, &Task{category: c, fc: fc, opts: opts})
		}
	}
	return out
}

// WithExecutor returns a copy of t that runs BFCL's Python through ex.
func (t *Task) WithExecutor(ex sandbox.Executor) *Task {
	c := *t
	c.exec = ex
	return &c
}

func (t *Task) file() string { return "BFCL_v4_" + t.category + ".json" }

// Info implements evals.Task.
func (t *Task) Info() evals.TaskInfo {
	name := "bfcl_" + t.category
	mode := "prompt mode ([f(a=1)] decoded as Python's ast)"
	if t.fc {
		name += "_fc"
		mode = "function-calling mode (tools through the chat template)"
	}
	return evals.TaskInfo{
		Name: name, Version: "1", Source: source,
		DatasetFiles:  []string{filepath.Join("bfcl", "v4", t.file()), filepath.Join("bfcl", "v4", "possible_answer", t.file())},
		PrimaryMetric: "accuracy", Metrics: []string{"accuracy"},
		Description:      fmt.Sprintf("BFCL v4 %s, %s: conversations run on BFCL's backends in the sandbox, scored by BFCL's multi_turn_checker", t.category, mode),
		DefaultMaxTokens: 512,
	}
}

// Setup implements evals.Setupper: it starts the sandbox.
func (t *Task) Setup(ctx context.Context, env evals.Env) (evals.Task, io.Closer, error) {
	if t.exec != nil {
		return t, nil, nil
	}
	if t.opts.NewExecutor == nil {
		return nil, nil, errors.New("no sandbox configured for BFCL's backends")
	}
	ex, closer, err := t.opts.NewExecutor(ctx, env)
	if err != nil {
		return nil, nil, err
	}
	return t.WithExecutor(ex), closer, nil
}

// entry is one BFCL multi-turn entry, ready to run and score.
type entry struct {
	info        entryInfo
	turns       [][]runtime.Message
	functions   []any         // the function documents offered from the start (no hint yet)
	missed      map[int][]any // turn → held-out function documents revealed there
	groundTruth [][]string
	env         *env
}

// Load implements evals.Task.
func (t *Task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	name := t.Info().Name
	path := cfg.DatasetFile
	root := cfg.DataDir
	apath := filepath.Join(cfg.DataDir, "bfcl", "v4", "possible_answer", t.file())
	if path == "" {
		path = filepath.Join(cfg.DataDir, "bfcl", "v4", t.file())
	} else {
		// --dataset-file: the entries and their possible answers from
		// there; BFCL's backends and function documents stay the data
		// directory's.
		apath = filepath.Join(filepath.Dir(path), "possible_answer", filepath.Base(path))
	}
	ds := &evals.Dataset{Files: map[string]string{}}
	e, err := loadEnv(name, root)
	if err != nil {
		return nil, err
	}
	for p, sum := range e.files {
		ds.Files[p] = sum
	}
	docs := map[string][]any{}
	classes := make([]string, 0, len(classDocs))
	for c := range classDocs {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		p := filepath.Join(root, "bfcl", "v4", "multi_turn_func_doc", classDocs[c])
		data, sum, err := evals.ReadDataFile(name, p, source)
		if err != nil {
			return nil, err
		}
		ds.Files[p] = sum
		err = eachLine(ctx, data, func(line int, raw []byte) error {
			f, err := jinja.FromJSON(raw)
			if err != nil {
				return &evals.DataError{Path: p, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
			}
			d, ok := f.(*jinja.Dict)
			if !ok {
				return &evals.DataError{Path: p, Line: line, Err: errors.New("want a function document object")}
			}
			if n, _ := d.Get("name"); jinja.Str(n) == "" {
				return &evals.DataError{Path: p, Line: line, Field: "name", Err: errors.New("missing")}
			}
			docs[c] = append(docs[c], f)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	adata, asum, err := evals.ReadDataFile(name, apath, source)
	if err != nil {
		return nil, err
	}
	ds.Files[apath] = asum
	answers := map[string][][]string{}
	err = eachLine(ctx, adata, func(line int, raw []byte) error {
		var r struct {
			ID          string     `json:"id"`
			GroundTruth [][]string `json:"ground_truth"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return &evals.DataError{Path: apath, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		if r.ID == "" || r.GroundTruth == nil {
			return &evals.DataError{Path: apath, Line: line, Field: "ground_truth", Err: errors.New("id or ground_truth missing")}
		}
		answers[r.ID] = r.GroundTruth
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data, sum, err := evals.ReadDataFile(name, path, source)
	if err != nil {
		return nil, err
	}
	ds.Files[path] = sum
	seen := map[string]int{}
	err = eachLine(ctx, data, func(line int, raw []byte) error {
		var r struct {
			ID              string              `json:"id"`
			Question        [][]runtime.Message `json:"question"`
			InitialConfig   json.RawMessage     `json:"initial_config"`
			InvolvedClasses []string            `json:"involved_classes"`
			Missed          map[string][]string `json:"missed_function"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return &evals.DataError{Path: path, Line: line, Err: fmt.Errorf("invalid JSON: %w", err)}
		}
		switch {
		case r.ID == "":
			return &evals.DataError{Path: path, Line: line, Field: "id", Err: errors.New("missing")}
		case len(r.Question) == 0:
			return &evals.DataError{Path: path, Line: line, Field: "question", Err: errors.New("want a list of turns")}
		case len(r.InvolvedClasses) == 0:
			return &evals.DataError{Path: path, Line: line, Field: "involved_classes", Err: errors.New("missing")}
		}
		if prev, dup := seen[r.ID]; dup {
			return &evals.DataError{Path: path, Line: line, Field: "id", Err: fmt.Errorf("duplicate %s (first on line %d)", r.ID, prev)}
		}
		seen[r.ID] = line
		if len(r.InitialConfig) == 0 {
			r.InitialConfig = json.RawMessage("{}")
		}
		gt, ok := answers[r.ID]
		if !ok {
			return &evals.DataError{Path: path, Line: line, Field: "id", Err: fmt.Errorf("no possible answer for %s in %s", r.ID, apath)}
		}
		ent := &entry{info: entryInfo{ID: r.ID, InitialConfig: r.InitialConfig, InvolvedClasses: r.InvolvedClasses},
			turns: r.Question, groundTruth: gt, env: e, missed: map[int][]any{}}
		// populate_test_cases_with_predefined_functions: the involved
		// classes' documents in order, the held-out ones taken out.
		for _, c := range r.InvolvedClasses {
			d, ok := docs[c]
			if !ok {
				return &evals.DataError{Path: path, Line: line, Field: "involved_classes", Err: fmt.Errorf("unknown class %q", c)}
			}
			ent.functions = append(ent.functions, d...)
		}
		turnKeys := make([]string, 0, len(r.Missed))
		for k := range r.Missed {
			turnKeys = append(turnKeys, k)
		}
		sort.Strings(turnKeys) // BFCL walks the file's order; the removals commute
		for _, k := range turnKeys {
			turn, err := strconv.Atoi(k)
			if err != nil || turn < 0 || turn >= len(r.Question) {
				return &evals.DataError{Path: path, Line: line, Field: "missed_function", Err: fmt.Errorf("turn %q is not a turn of the question", k)}
			}
			ent.missed[turn] = []any{}
			for _, fn := range r.Missed[k] {
				for i, f := range ent.functions {
					if n, _ := f.(*jinja.Dict).Get("name"); jinja.Str(n) == fn {
						ent.missed[turn] = append(ent.missed[turn], f)
						ent.functions = append(ent.functions[:i:i], ent.functions[i+1:]...)
						break
					}
				}
			}
		}
		input := ""
		if len(r.Question[0]) > 0 {
			input = r.Question[0][len(r.Question[0])-1].Content
		}
		gtText, _ := json.Marshal(gt)
		ds.Samples = append(ds.Samples, evals.Sample{ID: r.ID, Input: input, Target: string(gtText), Meta: map[string]any{"entry": ent}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(ds.Samples) == 0 {
		return nil, fmt.Errorf("%s: dataset %s has no entries", name, path)
	}
	return ds, nil
}

func eachLine(ctx context.Context, data []byte, f func(line int, raw []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return err
		}
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		if err := f(line, raw); err != nil {
			return err
		}
	}
	return sc.Err()
}

func sampleEntry(s evals.Sample) (*entry, error) {
	e, ok := s.Meta["entry"].(*entry)
	if !ok {
		return nil, fmt.Errorf("sample %s was not loaded by a multi-turn task", s.ID)
	}
	return e, nil
}

// conversation is the state of one sample's conversation.
type conversation struct {
	t        *Task
	e        *entry
	msgs     []runtime.Message
	tools    json.RawMessage
	revealed []any
	raw      bool // raw prompts: the conversation as text
}

// start renders the conversation before its first turn: BFCL's
// _pre_query_processing (the system prompt of prompt mode goes into the
// first turn's messages) and _compile_tools.
func (t *Task) start(e *entry, chat bool) (*conversation, error) {
	c := &conversation{t: t, e: e, raw: !chat}
	if t.fc {
		tools, err := bfcl.Tools(e.functions, true)
		if err != nil {
			return nil, err
		}
		c.tools = tools
	}
	return c, nil
}

// turnMessages are the messages that open turn i.
func (c *conversation) turnMessages(i int) ([]runtime.Message, error) {
	msgs := append([]runtime.Message(nil), c.e.turns[i]...)
	if missed, ok := c.e.missed[i]; ok {
		if len(msgs) != 0 {
			return nil, fmt.Errorf("turn %d reveals functions but has a user message", i)
		}
		if c.t.fc {
			c.revealed = append(c.revealed, missed...)
			all := append(bfcl.WithHint(c.e.functions), c.revealed...)
			tools, err := bfcl.Tools(all, false)
			if err != nil {
				return nil, err
			}
			c.tools = tools
			msgs = []runtime.Message{{Role: "user", Content: additionalFC}}
		} else {
			msgs = []runtime.Message{{Role: "user", Content: fmt.Sprintf(additionalPrompt, jinja.Repr(missed))}}
		}
	}
	if i == 0 && !c.t.fc {
		sys, err := bfcl.SystemPrompt(c.e.functions)
		if err != nil {
			return nil, err
		}
		if len(msgs) > 0 && msgs[0].Role == "system" {
			msgs[0].Content = sys + "\n\n" + msgs[0].Content
		} else {
			msgs = append([]runtime.Message{{Role: "system", Content: sys}}, msgs...)
		}
	}
	return msgs, nil
}

func (c *conversation) request(s evals.Sample, t *Task, cfg evals.PromptConfig) runtime.Request {
	req := runtime.Request{ID: s.ID, Task: t.Info().Name, Gen: cfg.Gen, Messages: append([]runtime.Message(nil), c.msgs...)}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = t.Info().DefaultMaxTokens
	}
	if t.fc {
		req.Tools = c.tools
	}
	if c.raw {
		// Raw prompts have no template to put the conversation in: its
		// messages follow each other as text, after the tools in FC mode
		// (a fallback, as the single-turn tasks do; BFCL chats).
		var b strings.Builder
		if t.fc {
			b.WriteString("Tools: " + string(c.tools) + "\n\n")
		}
		for _, m := range c.msgs {
			b.WriteString(m.Content + "\n\n")
		}
		req.Messages, req.Prompt = nil, b.String()
	}
	return req
}

// Prompt implements evals.Task: the conversation's first request.
func (t *Task) Prompt(_ *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	e, err := sampleEntry(s)
	if err != nil {
		return runtime.Request{}, err
	}
	c, err := t.start(e, cfg.Chat)
	if err != nil {
		return runtime.Request{}, fmt.Errorf("%s: sample %s: %w", t.Info().Name, s.ID, err)
	}
	msgs, err := c.turnMessages(0)
	if err != nil {
		return runtime.Request{}, fmt.Errorf("%s: sample %s: %w", t.Info().Name, s.ID, err)
	}
	c.msgs = msgs
	return c.request(s, t, cfg), nil
}

// Converse implements evals.Conversational: BFCL's
// inference_multi_turn_prompting / inference_multi_turn_FC.
func (t *Task) Converse(ctx context.Context, _ *evals.Dataset, s evals.Sample, cfg evals.PromptConfig, gen evals.GenerateFunc) (evals.Conversation, error) {
	var conv evals.Conversation
	e, err := sampleEntry(s)
	if err != nil {
		return conv, err
	}
	if t.exec == nil {
		return conv, errors.New("no sandbox for BFCL's backends (the task was not set up)")
	}
	c, err := t.start(e, cfg.Chat)
	if err != nil {
		return conv, err
	}
	var result []any // turns of steps, as BFCL's result file holds them
	var history [][]string
	forceQuit := false
	for turn := range e.turns {
		msgs, err := c.turnMessages(turn)
		if err != nil {
			return conv, err
		}
		c.msgs = append(c.msgs, msgs...)
		steps := []any{}
		for count := 0; ; {
			resp, err := gen(ctx, c.request(s, t, cfg))
			if err != nil {
				return conv, err
			}
			conv.Requests++
			conv.PromptTokens += resp.PromptTokens
			conv.CompletionTokens += resp.CompletionTokens
			conv.Total += resp.Timings.Total
			conv.Output.FinishReason = resp.FinishReason
			var step any = resp.Text
			var ids []string
			asst := runtime.Message{Role: "assistant", Content: resp.Text}
			if t.fc && len(resp.ToolCalls) > 0 {
				list := make([]any, len(resp.ToolCalls))
				for i, tc := range resp.ToolCalls {
					d := &scorer.Dict{}
					d.Set(tc.Name, tc.Arguments)
					list[i] = d
					// The conversation numbers the calls itself rather than
					// keeping the ids the runtime gave (a server's are unique
					// per response, not reproducible): ids are not scored,
					// and a resumed conversation must record the bytes a
					// clean one does.
					tc.ID = fmt.Sprintf("call_%d_%d_%d", turn, count, i)
					ids = append(ids, tc.ID)
					asst.ToolCalls = append(asst.ToolCalls, tc)
				}
				step = list
			}
			c.msgs = append(c.msgs, asst)
			steps = append(steps, step)
			calls, err := decodeExecute(t.fc, step)
			if err != nil || len(calls) == 0 {
				break // BFCL: a failed decode or an empty one ends the turn
			}
			results, feedback, err := e.env.execute(ctx, t.exec, e.info, history, calls)
			if err != nil {
				return conv, err
			}
			history = append(history, calls)
			if t.fc {
				for i := 0; i < len(results) && i < len(ids); i++ {
					c.msgs = append(c.msgs, runtime.Message{Role: "tool", Content: results[i], ToolCallID: ids[i]})
				}
			} else {
				c.msgs = append(c.msgs, runtime.Message{Role: "user", Content: feedback})
			}
			count++
			if count > MaxSteps {
				forceQuit = true
				break
			}
		}
		result = append(result, steps)
		if forceQuit {
			break
		}
	}
	text, err := resultJSON(result)
	if err != nil {
		return conv, err
	}
	conv.Output.Text, conv.Output.Raw = text, text
	conv.Messages = c.msgs
	return conv, nil
}

// resultJSON writes the turns as BFCL's result file does: strings as
// they are, function calls as [{name: arguments}].
func resultJSON(turns []any) (string, error) {
	var conv func(v any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case *scorer.Dict:
			m := make(orderedObject, len(x.Keys()))
			for i, k := range x.Keys() {
				m[i] = [2]any{str(k), conv(x.Values()[i])}
			}
			return m
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = conv(e)
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(conv(turns))
	return string(b), err
}

// orderedObject is a JSON object that keeps its keys' order.
type orderedObject [][2]any

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv[0])
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv[1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Score implements evals.Task: BFCL's _evaluate_single_multi_turn_entry.
func (t *Task) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	e, err := sampleEntry(s)
	if err != nil {
		return evals.Score{}, err
	}
	v, decoded, err := t.verdict(ctx, e, out.Text)
	if err != nil {
		return evals.Score{}, fmt.Errorf("%s: sample %s: %w", t.Info().Name, s.ID, err)
	}
	score := 0.0
	details := map[string]any{"valid": v.Valid}
	if v.Valid {
		score = 1
	} else {
		details["error_type"] = v.ErrorType
		details["error"] = v.ErrorMessage
	}
	extracted := ""
	if decoded != nil {
		b, _ := json.Marshal(decoded)
		extracted = string(b)
	}
	return evals.Score{Values: map[string]float64{"accuracy": score}, Extracted: extracted,
		ExtractionFailed: v.ErrorType == "multi_turn:inference_error", Details: details}, nil
}

// verdict judges a result (BFCL's result-file "result" as JSON text, or
// an inference error's text) as BFCL's eval runner does.
func (t *Task) verdict(ctx context.Context, e *entry, text string) (checkVerdict, [][][]string, error) {
	var turns []any
	if v, err := scorer.ParseJSON([]byte(text)); err == nil {
		turns, _ = v.([]any)
	}
	if turns == nil && strings.TrimSpace(text) != "[]" {
		return checkVerdict{ErrorType: "multi_turn:inference_error",
			ErrorMessage: "Error during inference phase. Model did not output a list of model responses."}, nil, nil
	}
	if len(turns) != len(e.groundTruth) {
		return checkVerdict{ErrorType: "multi_turn:force_terminated",
			ErrorMessage: fmt.Sprintf("Model was force-terminated during inference phase. The length of the model result turns (%d) does not match the length of the ground truth turns (%d).", len(turns), len(e.groundTruth))}, nil, nil
	}
	decoded := make([][][]string, len(turns))
	for i, turn := range turns {
		decoded[i] = [][]string{}
		steps, ok := turn.([]any)
		if !ok {
			// BFCL iterates the turn: a string turn's characters are
			// its steps, each failing to decode (a dict turn's keys
			// likewise); anything else makes its runner raise.
			if _, isStr := turn.(string); !isStr {
				if _, isDict := turn.(*scorer.Dict); !isDict {
					return checkVerdict{}, nil, fmt.Errorf("turn %d of the result is a %T, which BFCL's runner cannot iterate", i, turn)
				}
			}
			continue
		}
		for _, step := range steps {
			calls, err := decodeExecute(t.fc, step)
			if err != nil || len(calls) == 0 {
				continue
			}
			decoded[i] = append(decoded[i], calls)
		}
	}
	if t.exec == nil {
		return checkVerdict{}, nil, errors.New("no sandbox for BFCL's checker (the task was not set up)")
	}
	v, err := e.env.check(ctx, t.exec, e.info, decoded, e.groundTruth)
	return v, decoded, err
}
