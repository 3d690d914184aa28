// Package bfcl provides the Berkeley Function Calling Leaderboard's AST
// categories as tasks, scored by scorers/bfcl exactly as BFCL's
// ast_checker scores them.
//
// Tasks: bfcl_simple, bfcl_multiple, bfcl_parallel, bfcl_parallel_multiple,
// bfcl_irrelevance and bfcl_live_simple, bfcl_live_multiple,
// bfcl_live_parallel, bfcl_live_parallel_multiple, bfcl_live_irrelevance,
// bfcl_live_relevance on BFCL v4's files (bfcl/v4/BFCL_v4_<category>.json,
// scored by the current checker), and bfcl_v2_simple, bfcl_v2_multiple,
// bfcl_v2_parallel, bfcl_v2_parallel_multiple, bfcl_v2_irrelevance on the
// v2 files of August 2024 (scored by that release's checker, which produced
// the published results of the time). Each exists in BFCL's two modes:
//
//   - prompt mode (the plain name): BFCL's system prompt lists the
//     functions as JSON and asks for "[func(a=1), ...]"; the answer text is
//     decoded as BFCL decodes it (Python's ast). v4 uses BFCL's default
//     system prompt (ret_fmt=python, plaintext, classic), with the
//     "Note that the provided function is in Python 3 syntax." hint BFCL adds
//     to every description; v2 uses that release's system and user prompts.
//   - function-calling mode (the name with "_fc"): the functions go to the
//     model as OpenAI tools (BFCL's convert_to_tool with GORILLA_TO_OPENAPI
//     types, names with "." written "_" as BFCL does for most model styles)
//     through the chat template, and the runtime's parsed tool calls are
//     scored, as BFCL's FC handlers score {name: JSON arguments}.
//
// Every sample records valid and BFCL's error_type in its details. With
// --runtime replay, BFCL's own result files ({"id", "result"} lines; a
// string in prompt mode, a list of {name: JSON arguments} in FC mode) are
// scored as they are.
package bfcl

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/runtime"
	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// Task is one BFCL category in one mode.
type Task struct {
	name     string
	category string // BFCL's test category
	file     string // under the data directory
	answers  string // "" for relevance categories
	version  scorer.Version
	fc       bool
	handler  *scorer.Handler // nil: the default decoders

	infoVersion, desc string // Info's, made by described
}

var _ evals.Optioner = (*Task)(nil)

// OptionHandler is the task option (evals.Optioner) naming the BFCL model
// handler whose decoder reads the answers (--bfcl-handler).
const OptionHandler = "handler"

// WithHandler returns the task decoding answers with BFCL's handler name
// ("" or "default": the default decoders), or, when name is not a handler,
// with the one BFCL's model registry of the task's release maps that model
// name to. The handler is part of the task version ("1+handler.hermes"), so
// that the manifest records it and a run is never resumed with another.
func (t *Task) WithHandler(name string) (*Task, error) {
	c := *t
	c.handler = nil
	if name == "" || name == "default" {
		return c.described(), nil
	}
	h, err := scorer.LookupHandler(name)
	if err != nil {
		mh, ok := scorer.HandlerForModel(t.version, name)
		if !ok {
			return nil, fmt.Errorf("%w (or a model name of BFCL v%d's registry)", err, t.version)
		}
		h = mh
	}
	if !h.Has(t.version) {
		return nil, fmt.Errorf("BFCL handler %q is not in BFCL v%d (task %s)", h.Name, t.version, t.name)
	}
	if h.Name != "default" {
		c.handler = h
	}
	return c.described(), nil
}

// OptionKeys implements evals.Optioner.
func (t *Task) OptionKeys() []string { return []string{OptionHandler} }

// TaskOptions implements evals.Optioner: the handler, when not the default.
func (t *Task) TaskOptions() map[string]string {
	if t.handler == nil {
		return nil
	}
	return map[string]string{OptionHandler: t.handler.Name}
}

// WithTaskOptions implements evals.Optioner.
func (t *Task) WithTaskOptions(opts map[string]string) (evals.Task, error) {
	name := ""
	for k, v := range opts {
		if k != OptionHandler {
			return nil, fmt.Errorf("task %s: unknown option %q (known: %s)", t.name, k, OptionHandler)
		}
		name = v
	}
	c, err := t.WithHandler(name)
	if err != nil {
		return nil, err
	}
	return c, nil
}

const source = "https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard (see bfcl/SOURCES in the data directory)"

// Tasks returns every BFCL task.
func Tasks() []evals.Task {
	type cat struct{ task, category, file string }
	v4 := []cat{
		{"simple", "simple_python", "BFCL_v4_simple_python.json"},
		{"multiple", "multiple", "BFCL_v4_multiple.json"},
		{"parallel", "parallel", "BFCL_v4_parallel.json"},
		{"parallel_multiple", "parallel_multiple", "BFCL_v4_parallel_multiple.json"},
		{"irrelevance", "irrelevance", "BFCL_v4_irrelevance.json"},
		{"live_simple", "live_simple", "BFCL_v4_live_simple.json"},
		{"live_multiple", "live_multiple", "BFCL_v4_live_multiple.json"},
		{"live_parallel", "live_parallel", "BFCL_v4_live_parallel.json"},
		{"live_parallel_multiple", "live_parallel_multiple", "BFCL_v4_live_parallel_multiple.json"},
		{"live_irrelevance", "live_irrelevance", "BFCL_v4_live_irrelevance.json"},
		{"live_relevance", "live_relevance", "BFCL_v4_live_relevance.json"},
	}
	v2 := []cat{
		{"simple", "simple", "gorilla_openfunctions_v1_test_simple.json"},
		{"multiple", "multiple_function", "gorilla_openfunctions_v1_test_multiple_function.json"},
		{"parallel", "parallel_function", "gorilla_openfunctions_v1_test_parallel_function.json"},
		{"parallel_multiple", "parallel_multiple_function", "gorilla_openfunctions_v1_test_parallel_multiple_function.json"},
		{"irrelevance", "relevance", "gorilla_openfunctions_v1_test_relevance.json"},
	}
	var out []evals.Task
	for _, fc := range []bool{false, true} {
		suffix := ""
		if fc {
			suffix = "_fc"
		}
		for _, c := range v4 {
			t := &Task{name: "bfcl_" + c.task + suffix, category: c.category, file: filepath.Join("bfcl", "v4", c.file), version: scorer.V4, fc: fc}
			if !scorer.IsRelevance(c.category) {
				t.answers = filepath.Join("bfcl", "v4", "possible_answer", c.file)
			}
			out = append(out, t.described())
		}
		for _, c := range v2 {
			t := &Task{name: "bfcl_v2_" + c.task + suffix, category: c.category, file: filepath.Join("bfcl", "v2", c.file), version: scorer.V2, fc: fc}
			if !scorer.IsRelevance(c.category) {
				t.answers = filepath.Join("bfcl", "v2", "possible_answer", c.file)
			}
			out = append(out, t.described())
		}
	}
	return out
}

// Info implements evals.Task.
func (t *Task) Info() evals.TaskInfo {
	files := []string{t.file}
	if t.answers != "" {
		files = append(files, t.answers)
	}
	version, desc := t.infoVersion, t.desc
	if desc == "" {
		version, desc = t.describe()
	}
	return evals.TaskInfo{
		Name: t.name, Version: version, DatasetFiles: files, Source: source,
		PrimaryMetric: "accuracy", Metrics: []string{"accuracy"},
		Description:      desc,
		DefaultMaxTokens: defaultMaxTokens,
	}
}

// described returns t with its version and description made (Info
// returns them, and the registry asks for it many times).
func (t *Task) described() *Task {
	t.infoVersion, t.desc = t.describe()
	return t
}

func (t *Task) describe() (version, desc string) {
	mode := "prompt mode ([f(a=1)] decoded as Python's ast)"
	if t.fc {
		mode = "function-calling mode (tools through the chat template)"
	}
	version, decoder := "1", ""
	if t.handler != nil {
		version += "+handler." + t.handler.Name
		decoder = fmt.Sprintf(", decoded by BFCL's %s handler", t.handler.Name)
	}
	return version, fmt.Sprintf("BFCL v%d %s, %s%s, scored by BFCL's ast_checker", t.version, t.category, mode, decoder)
}

// defaultMaxTokens is the tasks' DefaultMaxTokens.
const defaultMaxTokens = 512

// Load implements evals.Task.
func (t *Task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	path := cfg.DatasetFile
	if path == "" {
		path = filepath.Join(cfg.DataDir, t.file)
	}
	data, sum, err := evals.ReadDataFile(t.name, path, source)
	if err != nil {
		return nil, err
	}
	ds := &evals.Dataset{Files: map[string]string{path: sum}}
	answers := map[string]string{}
	if t.answers != "" {
		apath := filepath.Join(filepath.Dir(path), "possible_answer", filepath.Base(path))
		if cfg.DatasetFile == "" {
			apath = filepath.Join(cfg.DataDir, t.answers)
		}
		adata, asum, err := evals.ReadDataFile(t.name, apath, source)
		if err != nil {
			return nil, err
		}
		ds.Files[apath] = asum
		names, vals := []string{"id", "ground_truth"}, make([]string, 2)
		if err := eachLine(ctx, string(adata), func(line int, raw string) error {
			var r struct {
				ID          string          `json:"id"`
				GroundTruth json.RawMessage `json:"ground_truth"`
			}
			gt := ""
			if topFields(raw, names, vals) && fastID(vals[0], &r.ID) {
				gt = vals[1]
			} else {
				if err := json.Unmarshal([]byte(raw), &r); err != nil {
					return fmt.Errorf("%s:%d: invalid JSON: %w", apath, line, err)
				}
				gt = string(r.GroundTruth)
			}
			if r.ID == "" || len(gt) == 0 {
				return fmt.Errorf("%s:%d: field id or ground_truth missing", apath, line)
			}
			answers[r.ID] = gt
			return nil
		}); err != nil {
			return nil, fmt.Errorf("%s: %w", t.name, err)
		}
	}
	seen := map[string]int{}
	names, vals := []string{"id", "question", "function"}, make([]string, 3)
	err = eachLine(ctx, string(data), func(line int, raw string) error {
		var r struct {
			ID       string          `json:"id"`
			Question json.RawMessage `json:"question"`
			Function json.RawMessage `json:"function"`
		}
		var question, function string
		if topFields(raw, names, vals) && fastID(vals[0], &r.ID) {
			question, function = vals[1], vals[2]
		} else {
			if err := json.Unmarshal([]byte(raw), &r); err != nil {
				return fmt.Errorf("%s:%d: invalid JSON: %w", path, line, err)
			}
			question, function = string(r.Question), string(r.Function)
		}
		if r.ID == "" || len(question) == 0 || len(function) == 0 {
			return fmt.Errorf("%s:%d: field id, question or function missing", path, line)
		}
		if prev, dup := seen[r.ID]; dup {
			return fmt.Errorf("%s:%d: field id: duplicate %s (first on line %d)", path, line, r.ID, prev)
		}
		seen[r.ID] = line
		msgs, err := questionText(question)
		if err != nil {
			return fmt.Errorf("%s:%d: field question: %w", path, line, err)
		}
		s := evals.Sample{ID: r.ID, Input: msgs[len(msgs)-1].Content, Meta: make(map[string]any, 3)}
		s.Meta["function"], s.Meta["question"] = function, question
		if t.answers != "" {
			gt, ok := answers[r.ID]
			if !ok {
				return fmt.Errorf("%s:%d: no possible answer for id %s", path, line, r.ID)
			}
			s.Meta["ground_truth"] = gt
			s.Target = gt
		}
		ds.Samples = append(ds.Samples, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	if len(ds.Samples) == 0 {
		return nil, fmt.Errorf("%s: dataset %s has no entries", t.name, path)
	}
	return ds, nil
}

// fastID reads an id found by topFields (absent: ""), or returns false
// when json.Unmarshal has to.
func fastID(raw string, id *string) bool {
	if raw == "" {
		return true
	}
	s, ok := plainString(raw)
	*id = s
	return ok
}

// questionMessages reads BFCL's question: v2's string, or v4's list of
// turns whose first turn is the single-turn conversation.
func questionMessages(raw json.RawMessage) ([]runtime.Message, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []runtime.Message{{Role: "user", Content: s}}, nil
	}
	var turns [][]runtime.Message
	if err := json.Unmarshal(raw, &turns); err != nil || len(turns) == 0 || len(turns[0]) == 0 {
		return nil, fmt.Errorf("want a string or a list of turns of {role, content} messages")
	}
	return turns[0], nil
}

// questionText is questionMessages of a question kept as text: a string
// without escapes is read in place.
func questionText(q string) ([]runtime.Message, error) {
	if s, ok := plainString(q); ok {
		return []runtime.Message{{Role: "user", Content: s}}, nil
	}
	return questionMessages(json.RawMessage(q))
}

func metaString(s evals.Sample, k string) string {
	v, _ := s.Meta[k].(string)
	return v
}

// Prompt implements evals.Task.
func (t *Task) Prompt(_ *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	req := runtime.Request{ID: s.ID, Task: t.name, Gen: cfg.Gen}
	if req.Gen.MaxTokens == 0 {
		req.Gen.MaxTokens = defaultMaxTokens
	}
	msgs, err := questionText(metaString(s, "question"))
	if err != nil {
		return req, fmt.Errorf("%s: sample %s: %w", t.name, s.ID, err)
	}
	funcs, err := jinja.FromJSONString(metaString(s, "function"))
	if err != nil {
		return req, fmt.Errorf("%s: sample %s: function: %w", t.name, s.ID, err)
	}
	msgs = append([]runtime.Message(nil), msgs...)
	if t.fc {
		tools, err := openAITools(funcs, t.version, true)
		if err != nil {
			return req, fmt.Errorf("%s: sample %s: %w", t.name, s.ID, err)
		}
		req.Tools = tools
		if cfg.Chat {
			req.Messages = msgs
			return req, nil
		}
		// Raw prompts have no template to put tools in: they are listed
		// as JSON before the conversation (a fallback; FC mode is meant
		// for chat).
		var b strings.Builder
		b.WriteString("Tools: " + string(tools) + "\n\n")
		for _, m := range msgs {
			b.WriteString(m.Content + "\n\n")
		}
		req.Prompt = b.String()
		return req, nil
	}
	if t.version == scorer.V2 {
		list := funcs
		if d, ok := funcs.(*jinja.Dict); ok {
			list = []any{d}
		}
		msgs = []runtime.Message{
			{Role: "system", Content: v2SystemPrompt},
			{Role: "user", Content: fmt.Sprintf(v2UserPrompt, msgs[len(msgs)-1].Content, jinja.Repr(list))},
		}
	} else {
		sys, err := v4SystemPrompt(funcs)
		if err != nil {
			return req, fmt.Errorf("%s: sample %s: %w", t.name, s.ID, err)
		}
		if msgs[0].Role == "system" {
			msgs[0].Content = sys + "\n\n" + msgs[0].Content
		} else {
			msgs = append([]runtime.Message{{Role: "system", Content: sys}}, msgs...)
		}
	}
	if cfg.Chat {
		req.Messages = msgs
		return req, nil
	}
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content + "\n\n")
	}
	req.Prompt = b.String()
	return req, nil
}

// Score implements evals.Task.
func (t *Task) Score(_ context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	funcs, err := scorer.ParseJSONString(metaString(s, "function"))
	if err != nil {
		return evals.Score{}, fmt.Errorf("%s: sample %s: function: %w", t.name, s.ID, err)
	}
	var answer any
	if t.answers != "" {
		if answer, err = scorer.ParseJSONString(metaString(s, "ground_truth")); err != nil {
			return evals.Score{}, fmt.Errorf("%s: sample %s: ground_truth: %w", t.name, s.ID, err)
		}
	}
	var result any = out.Text
	dotsReplaced := false
	handler := t.handler
	if handler != nil && !handler.ReadsCalls() && len(out.ToolCalls) > 0 {
		if out.CallText != "" {
			// The runtime parsed calls out of the text
			// (runtime/toolcall); the handler decodes the whole text
			// instead, as it decodes the same text replayed.
			result = out.CallText
		} else {
			// A server returned calls without their text: they are
			// scored as BFCL scores calls.
			handler = nil
		}
	}
	if (t.fc || handler != nil) && len(out.ToolCalls) > 0 && (handler == nil || handler.ReadsCalls()) {
		calls := make([]any, len(out.ToolCalls))
		dotsReplaced = true
		for i, c := range out.ToolCalls {
			d := &scorer.Dict{}
			d.Set(c.Name, c.Arguments)
			calls[i] = d
			if strings.Contains(c.Name, ".") {
				dotsReplaced = false
			}
		}
		result = calls
	}
	if handler != nil && !handler.ReadsCalls() {
		dotsReplaced = handler.UnderscoreToDot(t.version)
	}
	v := scorer.Checker{Version: t.version, DotsReplaced: dotsReplaced, Handler: handler}.Evaluate(t.category, t.fc, funcs, answer, result)
	score := 0.0
	if v.Valid {
		score = 1
	}
	details := map[string]any{"valid": v.Valid}
	if !v.Valid {
		details["error_type"] = v.ErrorType
		details["error"] = scorer.CapText(fmt.Sprint(v.Errors...), maxDetail)
	}
	return evals.Score{Values: map[string]float64{"accuracy": score}, Extracted: scorer.CapText(decodedText(v.Decoded), maxDetail), ExtractionFailed: strings.HasPrefix(v.ErrorType, "ast_decoder:"), Details: details}, nil
}

// maxDetail bounds what a sample records of the checker's message and of
// the decoded calls (a hostile answer's values can be megabytes).
const maxDetail = 4096

func decodedText(calls []any) string {
	if calls == nil {
		return ""
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = scorer.Repr(c)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
