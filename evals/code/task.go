// Package code provides the code-generation tasks: humaneval (OpenAI
// HumanEval, 164 problems), mbpp (the hand-verified "sanitized" MBPP test
// split, 257 problems) and mbpp_full (the full MBPP test split, task_ids
// 11–510, 500 problems). Answers are judged by running the benchmark's own
// tests on the model's code through a sandbox.Executor; scores are pass
// (1/0) per generated sample and pass@k (k ∈ {1, 10, 100}, k ≤ n) over the
// n samples per problem.
//
// Prompting, per PromptConfig.Chat:
//
//   - humaneval, completion mode (Chat false): the raw HumanEval prompt, with
//     the Codex stop sequences (scorers/code.HumanEvalStop) as a generation
//     setting the runtime applies; the program is human-eval's, verbatim:
//     prompt + completion + "\n" + test + "\n" + "check(entry_point)". A
//     completion is never cut afterwards, so human-eval's own samples and
//     results files replay exactly as the official harness runs them.
//   - humaneval, chat mode: one user message asking for the complete
//     function in a ```python block, followed by the prompt in a fence; the
//     code is extracted (scorers/code.Extract) and a whole function is
//     placed after the prompt (replacing the stub), a body continues it.
//   - mbpp and mbpp_full, completion mode: the prompt of Austin et al. (2021)
//     as lm-evaluation-harness renders it — "You are an expert Python
//     programmer, and here is your task: {text} Your code should pass these
//     tests:\n\n{asserts}\n[BEGIN]\n" — after three exemplars (task_ids 2,
//     3, 4, each closed by "\n[DONE]"), stop "[DONE]".
//   - mbpp and mbpp_full, chat mode: zero-shot by default: the same task text
//     and asserts in one user message, asking for a ```python block
//     (--num-fewshot adds exemplars as earlier user/assistant turns).
//     The program is code + test imports / set-up + the asserts.
//
// Every program runs as the official harnesses run it (sandbox.ExecHarness:
// exec(program, {}) after their reliability_guard), under a per-problem
// CPU-time limit (TimeLimits: calibrated on the reference solution by
// default, or the official 3 s timer).
//
// Scoring never fails on a wrong answer: code that cannot be found scores 0
// with ExtractionFailed set. It fails only when the executor fails.
package code

import (
	"context"
	"errors"
	"fmt"
	"io"
	goruntime "runtime"
	"sort"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
)

// Options configure the code tasks. The zero value is usable for Load and
// Prompt; scoring needs an executor, from NewExecutor (at Setup) or
// WithExecutor.
type Options struct {
	// NewExecutor builds the code executor when the runner calls Setup. It
	// must honour env.UnsafeNoSandbox and env.Workers and record the
	// isolation it achieved with env.Record("sandbox", …). Nil makes Setup
	// fail with ErrNoExecutor.
	NewExecutor func(ctx context.Context, env evals.Env) (sandbox.Executor, io.Closer, error)
	// Limits, when not zero, bound every program and replace TimeLimits
	// (zero fields take the executor's defaults).
	Limits sandbox.Limits
	// TimeLimits decides each problem's time limit; the zero value means
	// calibrated limits with the default floor and factor.
	TimeLimits TimeLimits
	// VerdictMode is VerdictOfficial (zero value) or VerdictIsolated.
	VerdictMode string
}

// ErrNoExecutor is returned when a task must run code but has no executor.
var ErrNoExecutor = errors.New("no code executor configured")

type kind int

const (
	kindHumanEval kind = iota
	kindMBPP
	kindMBPPFull
)

// Task is one code-generation benchmark. It is a value safe for concurrent
// use; Setup and WithExecutor return new Tasks.
type Task struct {
	kind  kind
	opts  Options
	exec  sandbox.Executor
	calib *calibrator
}

var (
	_ evals.Task       = (*Task)(nil)
	_ evals.Setupper   = (*Task)(nil)
	_ evals.Aggregator = (*Task)(nil)
	_ evals.Optioner   = (*Task)(nil)
)

// HumanEval returns the humaneval task.
func HumanEval(opts Options) *Task { return &Task{kind: kindHumanEval, opts: opts} }

// MBPP returns the mbpp task (sanitized test split, 257 problems).
func MBPP(opts Options) *Task { return &Task{kind: kindMBPP, opts: opts} }

// MBPPFull returns the mbpp_full task (full test split, 500 problems).
func MBPPFull(opts Options) *Task { return &Task{kind: kindMBPPFull, opts: opts} }

// WithExecutor returns a copy of t that runs programs through ex (and
// measures reference solutions through it for calibrated time limits).
func (t *Task) WithExecutor(ex sandbox.Executor) *Task {
	c := *t
	if c.VerdictMode() == VerdictIsolated {
		ex = isolatedExecutor(ex, 1)
	}
	c.exec = ex
	c.calib = newCalibrator(ex, c.opts.TimeLimits.withDefaults())
	return &c
}

// WithTimeLimits returns a copy of t that decides time limits by tl.
func (t *Task) WithTimeLimits(tl TimeLimits) *Task {
	c := *t
	c.opts.TimeLimits = tl
	if c.exec != nil {
		c.calib = newCalibrator(c.exec, tl.withDefaults())
	}
	return &c
}

// TimeLimits returns the task's time-limit policy with defaults filled in.
func (t *Task) TimeLimits() TimeLimits { return t.opts.TimeLimits.withDefaults() }

const (
	humanEvalSource = "openai/human-eval data/HumanEval.jsonl.gz (https://github.com/openai/human-eval)"
	mbppSource      = "google-research mbpp/ (https://github.com/google-research/google-research/tree/master/mbpp; HF google-research-datasets/mbpp)"
)

// Info implements evals.Task.
func (t *Task) Info() evals.TaskInfo {
	version := "1"
	if t.VerdictMode() == VerdictIsolated {
		// Isolated verdicts are a different measurement: resuming or
		// comparing across modes is refused.
		version += "+isolated-verdicts"
	}
	info := evals.TaskInfo{
		Version:          version,
		PrimaryMetric:    "pass@1",
		Metrics:          []string{"pass"},
		DefaultMaxTokens: 1024,
	}
	switch t.kind {
	case kindHumanEval:
		info.Name = "humaneval"
		info.DatasetFiles = []string{"humaneval/HumanEval.jsonl.gz"}
		info.Source = humanEvalSource
		info.Description = "HumanEval: 164 Python functions from docstrings, judged by running their tests (pass@k)"
	case kindMBPP:
		info.Name = "mbpp"
		info.DatasetFiles = []string{"mbpp/sanitized-mbpp.json"}
		info.Source = mbppSource + " sanitized-mbpp.json"
		info.Description = "MBPP sanitized test split: 257 hand-verified basic Python problems with asserts (pass@k)"
		info.FewShot = true
	case kindMBPPFull:
		info.Name = "mbpp_full"
		info.DatasetFiles = []string{"mbpp/mbpp.jsonl"}
		info.Source = mbppSource + " mbpp.jsonl"
		info.Description = "MBPP full test split (task_ids 11-510): 500 basic Python problems with asserts (pass@k)"
		info.FewShot = true
	}
	return info
}

// mbppData is Dataset.Extra for the MBPP tasks.
type mbppData struct {
	shots []mbppExample
}

// Load implements evals.Task.
func (t *Task) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	info := t.Info()
	path, name := resolveFile(cfg, info.DatasetFiles[0])
	data, sum, err := evals.ReadDataFile(info.Name, path, info.Source)
	if err != nil {
		return nil, err
	}
	ds := &evals.Dataset{Files: map[string]string{name: sum}}
	switch t.kind {
	case kindHumanEval:
		ds.Samples, err = loadHumanEval(name, data)
	default:
		var items []mbppItem
		if items, err = readMBPP(name, data); err != nil {
			break
		}
		var shots []mbppExample
		ds.Samples, shots, ds.Warnings, err = parseMBPP(name, items, 11, 510)
		ds.Extra = &mbppData{shots: shots}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", info.Name, err)
	}
	for _, smp := range ds.Samples {
		smp.Meta[MetaDatasetSHA] = sum
	}
	return ds, nil
}

// Prompt implements evals.Task.
func (t *Task) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	req := runtime.Request{ID: s.ID, Task: t.Info().Name, Gen: cfg.Gen}
	switch t.kind {
	case kindHumanEval:
		prompt, err := metaString(s, MetaPrompt)
		if err != nil {
			return req, err
		}
		if cfg.Chat {
			req.Messages = []runtime.Message{{Role: "user", Content: humanEvalChatPrompt(prompt)}}
		} else {
			req.Prompt = prompt
			req.Gen.Stop = addStops(cfg.Gen.Stop, codescore.HumanEvalStop)
		}
		return req, nil
	default:
		tests, err := metaStrings(s, MetaTests)
		if err != nil {
			return req, err
		}
		var shots []mbppExample
		if d != nil {
			if x, ok := d.Extra.(*mbppData); ok {
				shots = x.shots
			}
		}
		n := cfg.NumFewshot
		if n < 0 {
			n = 3
			if cfg.Chat {
				n = 0
			}
		}
		if n > len(shots) {
			return req, fmt.Errorf("prompt %s: %d few-shot exemplars requested, the dataset has %d (task_ids 2, 3, 4)", s.ID, n, len(shots))
		}
		shots = shots[:n]
		if cfg.Chat {
			for _, ex := range shots {
				req.Messages = append(req.Messages,
					runtime.Message{Role: "user", Content: mbppChatPrompt(ex.Text, ex.Tests)},
					runtime.Message{Role: "assistant", Content: "```python\n" + normalizeCode(ex.Code) + "\n```"})
			}
			req.Messages = append(req.Messages, runtime.Message{Role: "user", Content: mbppChatPrompt(s.Input, tests)})
			return req, nil
		}
		var b strings.Builder
		for _, ex := range shots {
			b.WriteString(mbppCompletionPrompt(ex.Text, ex.Tests))
			b.WriteString(normalizeCode(ex.Code))
			b.WriteString("\n[DONE]\n\n")
		}
		b.WriteString(mbppCompletionPrompt(s.Input, tests))
		req.Prompt = b.String()
		req.Gen.Stop = addStops(cfg.Gen.Stop, codescore.MBPPStop)
		return req, nil
	}
}

func humanEvalChatPrompt(prompt string) string {
	return "Complete the following Python function. Reply with the complete function " +
		"(its signature, any imports it needs, and its body) in a single ```python code block.\n\n" +
		"```python\n" + strings.TrimRight(prompt, "\n") + "\n```"
}

func mbppTask(text string, tests []string) string {
	return "You are an expert Python programmer, and here is your task: " + text +
		" Your code should pass these tests:\n\n" + strings.Join(tests, "\n")
}

func mbppCompletionPrompt(text string, tests []string) string {
	return mbppTask(text, tests) + "\n[BEGIN]\n"
}

func mbppChatPrompt(text string, tests []string) string {
	return mbppTask(text, tests) + "\n\nWrite the Python code in a single ```python code block."
}

// normalizeCode turns the reference code's CRLF line ends (full MBPP) into
// LF for prompts.
func normalizeCode(s string) string {
	return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \n")
}

func addStops(have, add []string) []string {
	out := append([]string(nil), have...)
	for _, s := range add {
		dup := false
		for _, h := range out {
			dup = dup || h == s
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

func metaString(s evals.Sample, key string) (string, error) {
	v, ok := s.Meta[key].(string)
	if !ok {
		return "", fmt.Errorf("sample %s: meta %q missing or not a string", s.ID, key)
	}
	return v, nil
}

func metaStrings(s evals.Sample, key string) ([]string, error) {
	switch v := s.Meta[key].(type) {
	case []string:
		return v, nil
	case []any: // after a JSON round trip
		out := make([]string, len(v))
		for i, x := range v {
			str, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("sample %s: meta %q[%d] is not a string", s.ID, key, i)
			}
			out[i] = str
		}
		return out, nil
	}
	return nil, fmt.Errorf("sample %s: meta %q missing or not a list of strings", s.ID, key)
}

// Setup implements evals.Setupper: it builds the executor with
// Options.NewExecutor. A task that already has an executor is returned
// as it is.
func (t *Task) Setup(ctx context.Context, env evals.Env) (evals.Task, io.Closer, error) {
	name := t.Info().Name
	if t.exec != nil {
		return t, nopCloser{}, nil
	}
	if t.opts.NewExecutor == nil {
		return nil, nil, fmt.Errorf("%s: set up code execution: %w", name, ErrNoExecutor)
	}
	pairs := 0
	if t.VerdictMode() == VerdictIsolated {
		// Every isolated program holds two of the pool's workers.
		pairs = isolatedWorkers(env.Workers)
		env.Workers = 2 * pairs
	}
	// Every worker's zygote is forked by one zygote process (both sides
	// of an isolated program, and every program of the run): the
	// interpreter starts, imports and trains once per run, and each
	// program process still has all of its own per-program layers
	// (docs/sandbox.md, "Workers sharing a zygote process").
	env.WorkersPerZygote = max(env.Workers, goruntime.NumCPU()) // the pool's size at most
	ex, closer, err := t.opts.NewExecutor(ctx, env)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: set up code execution: %w", name, err)
	}
	if closer == nil {
		closer = nopCloser{}
	}
	if pairs > 0 {
		ex = isolatedExecutor(ex, pairs)
		if env.UnsafeNoSandbox && env.Warn != nil {
			env.Warn("%s: isolated verdicts rely on the sandbox keeping the model's process away from the tests' process; "+
				"without the sandbox (explicitly allowed) a program running as the same user may still reach it", name)
		}
	}
	nt := t.WithExecutor(ex)
	if env.Record != nil {
		env.Record(results.CodeRecordKey(name), nt.manifestRecord())
	}
	return nt, closer, nil
}

// manifestRecord says how the task runs programs, for the run manifest.
func (t *Task) manifestRecord() map[string]any {
	rec := map[string]any{
		"exec": "harness: exec(program, {}) after the official reliability_guard, as human-eval's " +
			"execution.py and HF code_eval run it",
		"verdict_mode": t.verdictRecord(),
	}
	if t.kind == kindHumanEval {
		rec["program"] = `prompt + completion + "\n" + test + "\n" + "check(" + entry_point + ")", verbatim`
		rec["stop"] = map[string]any{
			"completion_mode": codescore.HumanEvalStop,
			"applied":         "by the runtime while generating; replayed completions run verbatim",
		}
	}
	if t.opts.Limits != (sandbox.Limits{}) {
		rec["limits"] = t.opts.Limits
		return rec
	}
	tl := t.TimeLimits()
	lim := map[string]any{"mode": tl.Mode}
	switch tl.Mode {
	case TimeLimitsOfficial:
		lim["rule"] = fmt.Sprintf("%s wall-clock timer raising TimeoutException inside the program, kill at %s (human-eval's check_correctness)",
			OfficialTimeout, OfficialTimeout+time.Second)
	default:
		lim["rule"] = "cpu limit = max(floor, factor × reference solution's CPU time in the sandbox on this machine)"
		lim["floor"] = tl.Floor.String()
		lim["factor"] = tl.Factor
		lim["reference_times"] = tl.CacheDir
		if t.calib != nil {
			lim["python"] = t.calib.python
			lim["cpu"] = t.calib.cpu
		}
	}
	rec["time_limits"] = lim
	return rec
}

// Score implements evals.Task.
func (t *Task) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	name := t.Info().Name
	if t.exec == nil {
		return evals.Score{}, fmt.Errorf("%s: score %s: %w (the runner must call Setup)", name, s.ID, ErrNoExecutor)
	}
	var (
		program, reference string
		split              isolated.Program
		sc                 = evals.Score{Values: map[string]float64{"pass": 0}, Details: map[string]any{}}
	)
	switch t.kind {
	case kindHumanEval:
		prompt, err := metaString(s, MetaPrompt)
		if err != nil {
			return evals.Score{}, err
		}
		test, err := metaString(s, MetaTest)
		if err != nil {
			return evals.Score{}, err
		}
		entry, err := metaString(s, MetaEntryPoint)
		if err != nil {
			return evals.Score{}, err
		}
		var completion string
		if humanEvalCompletionMode(out, prompt, entry) {
			// Verbatim: the runtime applied the stop sequences while
			// generating; replayed completions run as the harness runs them.
			completion = out.Text
			sc.Details["mode"] = "completion"
			// An empty completion still runs (the stub fails its tests),
			// as in human-eval, but is flagged.
			sc.ExtractionFailed = strings.TrimSpace(completion) == ""
		} else {
			ex := codescore.Extract(out.Text, entry)
			sc.Details["mode"] = "chat"
			sc.Details["form"] = string(ex.Form)
			sc.Details["source"] = ex.Source
			if ex.Form == codescore.FormEmpty {
				sc.ExtractionFailed = true
				sc.Details["verdict"] = string(sandbox.Fail)
				sc.Details["reason"] = "no code found in the response"
				return sc, nil
			}
			completion = codescore.HumanEvalCompletion(ex)
		}
		sc.Extracted = completion
		program = codescore.HumanEvalProgram(prompt, completion, test, entry)
		split = codescore.HumanEvalIsolated(prompt, completion, test, entry)
		reference = codescore.HumanEvalProgram(prompt, s.Target, test, entry)
	default:
		tests, err := metaStrings(s, MetaTests)
		if err != nil {
			return evals.Score{}, err
		}
		setup, _ := s.Meta[MetaSetup].(string)
		entry, _ := s.Meta[MetaEntryPoint].(string)
		ex := codescore.Extract(codescore.TruncateAtStop(out.Text, codescore.MBPPStop), entry)
		sc.Details["form"] = string(ex.Form)
		sc.Details["source"] = ex.Source
		if ex.Form == codescore.FormEmpty {
			sc.ExtractionFailed = true
			sc.Details["verdict"] = string(sandbox.Fail)
			sc.Details["reason"] = "no code found in the response"
			return sc, nil
		}
		sc.Extracted = ex.Code
		program = codescore.MBPPProgram(ex.Code, setup, tests)
		split = codescore.MBPPIsolated(ex.Code, setup, tests, entry)
		if s.Target != "" {
			reference = codescore.MBPPProgram(s.Target, setup, tests)
		}
	}
	lim, err := t.limits(ctx, s, reference, sc.Details)
	if err != nil {
		return evals.Score{}, fmt.Errorf("%s: score %s: %w", name, s.ID, err)
	}
	var j codescore.Judgement
	if t.VerdictMode() == VerdictIsolated {
		r, ok := t.exec.(codescore.IsolatedRunner)
		if !ok {
			return evals.Score{}, fmt.Errorf("%s: score %s: the isolated verdict mode needs an executor that runs isolated programs", name, s.ID)
		}
		split.Exec, split.Limits = sandbox.ExecHarness, lim
		sc.Details["verdict_mode"] = VerdictIsolated
		j, err = codescore.JudgeIsolated(ctx, r, split)
	} else {
		j, err = codescore.Judge(ctx, t.exec, sandbox.Program{Source: program, Exec: sandbox.ExecHarness, Limits: lim})
	}
	if err != nil {
		return evals.Score{}, fmt.Errorf("%s: score %s: %w", name, s.ID, err)
	}
	if j.Passed {
		sc.Values["pass"] = 1
	}
	sc.Details["verdict"] = string(j.Verdict)
	if j.Reason != "" {
		sc.Details["reason"] = j.Reason
	}
	if j.Stderr != "" {
		sc.Details["stderr"] = j.Stderr
	}
	sc.Details["exit_code"] = j.ExitCode
	if j.Signal != "" {
		sc.Details["signal"] = j.Signal
	}
	sc.Details["duration_ms"] = j.Duration.Milliseconds()
	sc.Details["cpu_ms"] = j.CPUTime.Milliseconds()
	return sc, nil
}

// limits decides the limits of sample s's program and notes them in
// details: Options.Limits when set; the official timer; or the calibrated
// CPU-time limit from the reference program's CPU time (the floor when
// there is no reference, or it does not pass).
func (t *Task) limits(ctx context.Context, s evals.Sample, reference string, details map[string]any) (sandbox.Limits, error) {
	if t.opts.Limits != (sandbox.Limits{}) {
		return t.opts.Limits, nil
	}
	tl := t.TimeLimits()
	details["time_limit_mode"] = tl.Mode
	if tl.Mode == TimeLimitsOfficial {
		return officialLimits(), nil
	}
	lim := sandbox.Limits{CPUTime: tl.Floor}
	dataset, _ := s.Meta[MetaDatasetSHA].(string)
	if t.calib != nil && dataset != "" && reference != "" {
		ref, err := t.calib.reference(ctx, dataset, s.ID, reference)
		switch {
		case err == nil:
			lim.CPUTime = tl.limitFor(ref)
			details["reference_cpu_ms"] = ref.Milliseconds()
		case errors.Is(err, errReferenceFailed):
			details["reference"] = err.Error()
		default:
			return lim, err
		}
	}
	details["cpu_limit_ms"] = lim.CPUTime.Milliseconds()
	return lim, nil
}

// humanEvalCompletionMode decides how a HumanEval response is read. The
// runner passes the rendered prompt in Output.Prompt: in completion mode it
// is the HumanEval prompt itself (the request's raw Prompt), in chat mode a
// chat rendering that does not end with it. Without a rendered prompt the
// response decides: one that has a fence or defines the entry point at top
// level is a chat answer, anything else a raw completion.
func humanEvalCompletionMode(out evals.Output, prompt, entry string) bool {
	if out.Prompt != "" {
		return strings.HasSuffix(out.Prompt, prompt)
	}
	ex := codescore.Extract(out.Text, entry)
	return ex.Blocks == 0 && ex.Form != codescore.FormFunction && !strings.Contains(out.Raw, "<think")
}

// Aggregate implements evals.Aggregator: pass@k for k ∈ {1, 10, 100} with
// k ≤ n, where n is the number of samples generated per problem (the
// runner's repeats). With one greedy sample per problem pass@1 is the plain
// mean of pass.
func (t *Task) Aggregate(results []evals.SampleResult) evals.Aggregates {
	var order []string
	counts := map[string]*codescore.Count{}
	verdicts := map[string]int{}
	answers := map[string]map[string]bool{} // distinct extracted code per problem
	for _, r := range results {
		c, ok := counts[r.Sample.ID]
		if !ok {
			c = &codescore.Count{ID: r.Sample.ID}
			counts[r.Sample.ID] = c
			answers[r.Sample.ID] = map[string]bool{}
			order = append(order, r.Sample.ID)
		}
		answers[r.Sample.ID][r.Score.Extracted] = true
		c.N++
		if r.Score.Values["pass"] == 1 {
			c.Passed++
		}
		if v, ok := r.Score.Details["verdict"].(string); ok {
			verdicts[v]++
		}
	}
	list := make([]codescore.Count, 0, len(order))
	for _, id := range order {
		list = append(list, *counts[id])
	}
	rep := codescore.EstimatePassAtK(list, []int{1, 10, 100})
	agg := evals.Aggregates{Metrics: rep.Values, Units: rep.PerProblem}
	if len(list) == 0 {
		return agg
	}
	note := fmt.Sprintf("pass@k: unbiased estimator of Chen et al. (2021), mean over %d problems", len(list))
	if rep.MinN == rep.MaxN {
		note += fmt.Sprintf(" with n=%d samples each", rep.MinN)
	} else {
		note += fmt.Sprintf(" with n=%d..%d samples each (k limited to the smallest n)", rep.MinN, rep.MaxN)
	}
	if rep.MinN == 1 {
		note += "; n=1 (greedy): pass@1 is the fraction of problems solved"
	}
	agg.Notes = append(agg.Notes, note)
	if rep.MinN > 1 {
		identical := true
		for _, a := range answers {
			identical = identical && len(a) == 1
		}
		if identical {
			agg.Notes = append(agg.Notes, fmt.Sprintf("warning: the %d samples of every problem are identical "+
				"(greedy decoding?); pass@k for k > 1 then equals pass@1 — sample with temperature > 0 "+
				"(Chen et al. use 0.8 for pass@10/100, 0.2 for pass@1)", rep.MinN))
		}
	}
	if len(verdicts) > 0 {
		keys := make([]string, 0, len(verdicts))
		for k := range verdicts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, verdicts[k])
		}
		agg.Notes = append(agg.Notes, "verdicts: "+strings.Join(parts, ", "))
	}
	return agg
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
