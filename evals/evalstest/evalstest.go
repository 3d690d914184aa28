// Package evalstest checks that an evals.Task keeps the contract the runner
// relies on, in the manner of testing/fstest: Check exercises one task and
// returns every violated rule at once, each error naming the rule in plain
// English followed by what was observed.
//
// The rules:
//
//   - info: the name is a lowercase identifier, the version is set, the
//     task lists its dataset files and metrics (without repeats), and Info
//     returns the same value every time (it must not do I/O);
//   - missing data: Load from an empty data directory fails with an
//     *evals.MissingDataError naming the task, the path and the official
//     source, so the CLI can say how to fetch the data;
//   - load: Load succeeds, returns samples with non-empty, unique ids and
//     the sha256 of every file it read, and a second Load gives the same
//     samples and files;
//   - prompt: each checked sample renders in chat and in raw mode, as
//     exactly one of chat messages and a raw prompt, the same way twice;
//   - score: scoring an empty response and the reference answer succeeds
//     and returns finite values, for the same metrics on every sample, all
//     of them listed in Info().Metrics;
//   - metrics: every metric of Info().Metrics is returned by Score or
//     computed by Aggregate, and the primary metric is one of them;
//   - aggregate (tasks implementing evals.Aggregator): every task-level
//     value is finite, and the headline metric, per-unit values and
//     standard errors name metrics that exist;
//   - log-likelihood (tasks implementing evals.LoglikTask, after
//     WithMode("loglik") for tasks with modes): one request per choice with
//     a non-empty continuation, and scoring log-likelihood results returns
//     the mode's metrics.
//
// Tasks implementing evals.Setupper are set up with Options.Env first and
// closed at the end. The rules look at shapes and contracts, never at
// whether a score is right: conformance with the official scorers is each
// task's own test.
package evalstest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// Options tune Check. The zero value checks only the rules that need no
// data (info and missing data).
type Options struct {
	// DataDir is the data directory Load reads (as --data-dir). Empty
	// means no data: the rules that need samples are not checked.
	DataDir string
	// Samples is how many samples, spread over the dataset, are rendered
	// and scored. 0 means 8.
	Samples int
	// Env is what Setup receives; nil Record and Warn become no-ops.
	Env evals.Env
}

// ErrNoData is returned (joined with any violations) when the task's data
// is not in Options.DataDir, so the rules that need samples were skipped.
var ErrNoData = errors.New("evalstest: the task's dataset is not in the data directory; rules that need samples were not checked")

// Test runs Check and reports each violated rule as a separate test error;
// it skips the test when the data is missing (ErrNoData).
func Test(t *testing.T, task evals.Task, opts Options) {
	t.Helper()
	err := Check(t.Context(), task, opts)
	if err == nil {
		return
	}
	var errs []error
	if j, ok := err.(joined); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var skip error
	for _, e := range errs {
		if errors.Is(e, ErrNoData) {
			skip = e
			continue
		}
		t.Error(e)
	}
	if skip != nil && !t.Failed() {
		t.Skip(skip)
	}
}

// checker collects violations.
type checker struct {
	ctx  context.Context
	task evals.Task
	info evals.TaskInfo
	opts Options
	errs []error
	// seen maps a rule and message format to its index in errs; repeats
	// counts further violations of the same kind.
	seen    map[string]int
	repeats []int
	// scored is the set of metrics the first scored sample returned.
	scored      map[string]bool
	firstScored string
}

// fail records a violation of rule. A rule broken the same way on several
// samples is reported once, with the number of other samples.
func (c *checker) fail(rule, format string, args ...any) {
	key := rule + "\x00" + format
	if i, ok := c.seen[key]; ok {
		c.repeats[i]++
		return
	}
	c.seen[key] = len(c.errs)
	c.errs = append(c.errs, fmt.Errorf("%s: %s: %s", c.info.Name, rule, fmt.Sprintf(format, args...)))
	c.repeats = append(c.repeats, 0)
}

// err joins the violations.
func (c *checker) err() error {
	for i, n := range c.repeats {
		if n > 0 {
			c.errs[i] = fmt.Errorf("%w (and %d more like it)", c.errs[i], n)
		}
	}
	return errors.Join(c.errs...)
}

// Check exercises task and returns errors.Join of every rule it breaks (and
// ErrNoData when the data was missing), or nil.
func Check(ctx context.Context, task evals.Task, opts Options) error {
	if opts.Samples <= 0 {
		opts.Samples = 8
	}
	if opts.Env.Record == nil {
		opts.Env.Record = func(string, any) {}
	}
	if opts.Env.Warn == nil {
		opts.Env.Warn = func(string, ...any) {}
	}
	c := &checker{ctx: ctx, task: task, info: task.Info(), opts: opts, seen: map[string]int{}}
	c.checkInfo()
	c.checkMissingData()
	if opts.DataDir == "" {
		return c.err()
	}
	data, ok := c.load()
	if !ok {
		return c.err()
	}
	scoring, closeFn, ok := c.setup()
	if ok {
		defer closeFn()
		results := c.checkPromptAndScore(scoring, data)
		c.checkAggregate(scoring, results)
		c.checkLoglik(scoring, data)
	}
	return c.err()
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func (c *checker) checkInfo() {
	in := c.info
	if !nameRE.MatchString(in.Name) {
		c.fail("info", "the name must be a lowercase identifier ([a-z][a-z0-9_]*); got %q", in.Name)
	}
	if in.Version == "" {
		c.fail("info", "the version must be set (it changes when prompts or scoring change)")
	}
	if len(in.DatasetFiles) == 0 {
		c.fail("info", "the task must list its dataset files (the first is the primary file)")
	}
	if len(in.Metrics) == 0 {
		c.fail("info", "the task must list the metrics Score returns")
	}
	seen := map[string]bool{}
	for _, m := range in.Metrics {
		if seen[m] {
			c.fail("info", "metric %q is listed twice", m)
		}
		seen[m] = true
	}
	if in.PrimaryMetric == "" {
		c.fail("info", "the primary metric must be set")
	}
	if again := c.task.Info(); !reflect.DeepEqual(again, in) {
		c.fail("info", "Info must return the same value every time; got %+v then %+v", in, again)
	}
}

func (c *checker) checkMissingData() {
	empty, err := os.MkdirTemp("", "evalstest-empty-")
	if err != nil {
		c.fail("missing data", "cannot create an empty data directory: %v", err)
		return
	}
	defer os.RemoveAll(empty)
	_, err = c.task.Load(c.ctx, evals.LoadConfig{DataDir: empty, NumFewshot: -1})
	var me *evals.MissingDataError
	switch {
	case err == nil:
		c.fail("missing data", "Load from an empty data directory must fail; it succeeded")
	case !errors.As(err, &me):
		c.fail("missing data", "Load from an empty data directory must return an *evals.MissingDataError; got %T: %v", err, err)
	case me.Task != c.info.Name || me.Path == "" || me.Source == "":
		c.fail("missing data", "the MissingDataError must name the task %q, the path and the official source; got %+v", c.info.Name, *me)
	}
}

// load runs the load rules and returns the dataset.
func (c *checker) load() (*evals.Dataset, bool) {
	cfg := evals.LoadConfig{DataDir: c.opts.DataDir, NumFewshot: -1, Seed: 1234}
	data, err := c.task.Load(c.ctx, cfg)
	var me *evals.MissingDataError
	if errors.As(err, &me) {
		c.errs = append(c.errs, fmt.Errorf("%s: %w (%s)", c.info.Name, ErrNoData, me.Path))
		c.repeats = append(c.repeats, 0)
		return nil, false
	}
	if err != nil {
		c.fail("load", "Load must succeed on the data directory; got %v", err)
		return nil, false
	}
	if len(data.Samples) == 0 {
		c.fail("load", "Load must return samples; got none")
		return nil, false
	}
	ids := map[string]bool{}
	for i, s := range data.Samples {
		if s.ID == "" {
			c.fail("load", "every sample must have an id; sample %d has none", i)
		} else if ids[s.ID] {
			c.fail("load", "sample ids must be unique; %q appears twice", s.ID)
		}
		ids[s.ID] = true
	}
	if len(data.Files) == 0 {
		c.fail("load", "Dataset.Files must record every file read with its sha256; it is empty")
	}
	for f, h := range data.Files {
		if !sha256RE.MatchString(h) {
			c.fail("load", "Dataset.Files must map %s to its sha256 in lowercase hex; got %q", f, h)
		}
	}
	again, err := c.task.Load(c.ctx, cfg)
	if err != nil {
		c.fail("load", "a second Load must succeed too; got %v", err)
	} else if !sameSamples(data, again) {
		c.fail("load", "two Loads of the same data must give the same sample ids and files")
	}
	return data, true
}

var sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)

func sameSamples(a, b *evals.Dataset) bool {
	if len(a.Samples) != len(b.Samples) || !reflect.DeepEqual(a.Files, b.Files) {
		return false
	}
	for i := range a.Samples {
		if a.Samples[i].ID != b.Samples[i].ID {
			return false
		}
	}
	return true
}

// setup returns the task to score with: the result of Setup for tasks
// that need run-wide resources.
func (c *checker) setup() (evals.Task, func(), bool) {
	s, ok := c.task.(evals.Setupper)
	if !ok {
		return c.task, func() {}, true
	}
	t, closer, err := s.Setup(c.ctx, c.opts.Env)
	if err != nil {
		c.fail("setup", "Setup must succeed; got %v", err)
		return nil, nil, false
	}
	if t.Info().Name != c.info.Name {
		c.fail("setup", "Setup must return the same task; got %q", t.Info().Name)
	}
	return t, func() {
		if closer != nil {
			closer.Close()
		}
	}, true
}

// picks returns up to n sample indexes spread over the dataset.
func picks(total, n int) []int {
	if n >= total {
		n = total
	}
	out := make([]int, 0, n)
	for i := 0; i < n; i++ {
		idx := i * total / n
		if len(out) == 0 || out[len(out)-1] != idx {
			out = append(out, idx)
		}
	}
	return out
}

// checkPromptAndScore renders and scores the picked samples; it returns
// the scored results for the aggregate rules.
func (c *checker) checkPromptAndScore(t evals.Task, data *evals.Dataset) []evals.SampleResult {
	var results []evals.SampleResult
	c.scored = map[string]bool{}
	for _, idx := range picks(len(data.Samples), c.opts.Samples) {
		s := data.Samples[idx]
		var raw runtime.Request
		for _, chat := range []bool{true, false} {
			req, ok := c.render(t, data, s, chat)
			if ok && !chat {
				raw = req
			}
		}
		for _, text := range []string{"", s.Target} {
			out := evals.Output{Text: text, Raw: text, FinishReason: runtime.FinishStop, Prompt: raw.Prompt}
			if sc, ok := c.score(t, s, out, c.info.Metrics, "score"); ok {
				results = append(results, evals.SampleResult{Sample: s, Score: sc})
				c.sameMetrics(s, sc, "score")
			}
		}
	}
	return results
}

func (c *checker) render(t evals.Task, data *evals.Dataset, s evals.Sample, chat bool) (runtime.Request, bool) {
	pc := evals.PromptConfig{NumFewshot: -1, Chat: chat, Gen: runtime.GenConfig{Seed: 1234}}
	req, err := t.Prompt(data, s, pc)
	if err != nil {
		c.fail("prompt", "sample %s must render (chat=%v); got %v", s.ID, chat, err)
		return req, false
	}
	if (len(req.Messages) > 0) == (req.Prompt != "") {
		c.fail("prompt", "sample %s (chat=%v) must render as exactly one of chat messages and a raw prompt; got %d messages and a %d-byte prompt", s.ID, chat, len(req.Messages), len(req.Prompt))
	}
	if again, err := t.Prompt(data, s, pc); err != nil || !reflect.DeepEqual(again, req) {
		c.fail("prompt", "sample %s (chat=%v) must render the same way twice", s.ID, chat)
	}
	return req, true
}

// score scores out and checks that the returned metrics are listed in
// listed and finite.
func (c *checker) score(t evals.Task, s evals.Sample, out evals.Output, listed []string, rule string) (evals.Score, bool) {
	sc, err := t.Score(c.ctx, s, out)
	if err != nil {
		c.fail(rule, "scoring sample %s (response %.40q) must succeed: a wrong answer is a score, not an error; got %v", s.ID, out.Text, err)
		return sc, false
	}
	if len(sc.Values) == 0 {
		c.fail(rule, "Score must return metric values; sample %s has none", s.ID)
	}
	for m, v := range sc.Values {
		if !slices.Contains(listed, m) {
			c.fail(rule, "Score must return only metrics listed in Info().Metrics %v; sample %s has %q", listed, s.ID, m)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			c.fail(rule, "metric values must be finite; sample %s has %s = %v", s.ID, m, v)
		}
	}
	return sc, true
}

// sameMetrics checks that every sample's Score returns the same metrics
// (a per-metric mean is over all samples only if each has the metric).
func (c *checker) sameMetrics(s evals.Sample, sc evals.Score, rule string) {
	if len(c.scored) == 0 {
		for m := range sc.Values {
			c.scored[m] = true
		}
		c.firstScored = s.ID
		return
	}
	for m := range sc.Values {
		if !c.scored[m] {
			c.fail(rule, "Score must return the same metrics for every sample; sample %s has %q, sample %s does not", s.ID, m, c.firstScored)
		}
	}
	for m := range c.scored {
		if _, ok := sc.Values[m]; !ok {
			c.fail(rule, "Score must return the same metrics for every sample; sample %s lacks %q, which sample %s has", s.ID, m, c.firstScored)
		}
	}
}

// checkAggregate runs Aggregate over the scored results and checks, with
// what Score returned, that every listed metric is produced.
func (c *checker) checkAggregate(t evals.Task, results []evals.SampleResult) {
	if len(results) == 0 {
		return
	}
	produced := maps.Clone(c.scored)
	var agg evals.Aggregates
	if a, ok := t.(evals.Aggregator); ok {
		agg = a.Aggregate(results)
		for m := range agg.Metrics {
			produced[m] = true
		}
	}
	for _, m := range c.info.Metrics {
		if !produced[m] {
			c.fail("metrics", "every metric of Info().Metrics must be returned by Score or computed by Aggregate; %q is neither", m)
		}
	}
	if !produced[c.info.PrimaryMetric] {
		c.fail("metrics", "the primary metric %q must be returned by Score or computed by Aggregate", c.info.PrimaryMetric)
	}
	for m, v := range agg.Metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			c.fail("aggregate", "task-level values must be finite; %s = %v", m, v)
		}
	}
	if h := c.info.Headline; h != "" && h != c.info.PrimaryMetric && len(agg.Breakdown) > 0 {
		if _, ok := agg.Metrics[h]; !ok {
			c.fail("aggregate", "the headline metric %q must be one of Aggregate's metrics %v when Aggregate breaks the results down", h, keys(agg.Metrics))
		}
	}
	for m := range agg.Units {
		if _, ok := agg.Metrics[m]; !ok {
			c.fail("aggregate", "per-unit values are given for %q, which Aggregate does not produce", m)
		}
	}
	for m := range agg.Stderr {
		if _, ok := agg.Metrics[m]; !ok {
			c.fail("aggregate", "a standard error is given for %q, which Aggregate does not produce", m)
		}
	}
}

// joined is an error that wraps several (errors.Join).
type joined interface{ Unwrap() []error }

// checkLoglik exercises the log-likelihood mode of tasks that have one.
func (c *checker) checkLoglik(t evals.Task, data *evals.Dataset) {
	if m, ok := t.(evals.ModeSetter); ok {
		if _, isLL := t.(evals.LoglikTask); !isLL {
			return
		}
		lt, err := m.WithMode("loglik")
		if err != nil {
			c.fail("log-likelihood", "a task with a log-likelihood mode must accept WithMode(\"loglik\"); got %v", err)
			return
		}
		t = lt
	}
	ll, ok := t.(evals.LoglikTask)
	if !ok {
		return
	}
	metrics := t.Info().Metrics
	for _, idx := range picks(len(data.Samples), c.opts.Samples) {
		s := data.Samples[idx]
		reqs, err := ll.LoglikRequests(data, s, evals.PromptConfig{NumFewshot: -1, Chat: true})
		if err != nil {
			c.fail("log-likelihood", "sample %s must render its log-likelihood requests; got %v", s.ID, err)
			continue
		}
		if len(reqs) == 0 || (len(s.Choices) > 0 && len(reqs) != len(s.Choices)) {
			c.fail("log-likelihood", "sample %s must have one request per choice (%d); got %d", s.ID, len(s.Choices), len(reqs))
			continue
		}
		for i, r := range reqs {
			if r.Continuation == "" {
				c.fail("log-likelihood", "sample %s: request %d has an empty continuation", s.ID, i)
			}
		}
		lls := make([]runtime.LoglikResult, len(reqs))
		for i := range lls {
			lls[i] = runtime.LoglikResult{LogProb: -float64(i + 1), IsGreedy: i == 0, Tokens: 1}
		}
		c.score(t, s, evals.Output{Loglik: lls}, metrics, "log-likelihood")
	}
}

func keys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
