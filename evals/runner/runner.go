// Package runner executes tasks against a runtime and maintains a result
// directory: it renders every selected sample's request, feeds them to the
// runtime with bounded concurrency (errgroup), scores the responses, appends
// each finished sample to samples/<task>.jsonl as it completes, and writes
// summary.json at the end.
//
// Results never depend on concurrency or completion order: samples are
// keyed by id, the final files are rewritten in dataset order, and the
// summary is always computed from the records as read back from disk —
// whether the run was resumed or not.
//
// Resume: running again into a directory made with the same configuration
// continues where it stopped; finished samples are never regenerated and
// errored ones are retried. A different configuration is refused unless
// Force is set, which starts over.
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// Options configure a run. The zero value of each field is documented.
type Options struct {
	Tasks   []evals.Task
	Runtime runtime.Runtime
	// RuntimeName is recorded in the manifest ("llamacpp", ...).
	RuntimeName string
	// Model identifies the model; Files hashes are recorded.
	Model results.Model
	// OutDir is the result directory (created if missing).
	OutDir string
	// DataDir is the dataset root.
	DataDir string
	// DatasetFile replaces the primary dataset file (one task only).
	DatasetFile string
	// Limit keeps the first Limit samples of each task (0: all).
	Limit int
	// Concurrency bounds requests in flight (0: 1).
	Concurrency int
	Gen         runtime.GenConfig
	// NumFewshot: -1 means each task's default.
	NumFewshot int
	// Chat selects chat requests (true) or raw prompts (false).
	Chat bool
	// StripThinking removes <think>…</think> before scoring.
	StripThinking bool
	// Mode is "gen" (default) or "loglik" for tasks that support it.
	Mode string
	// SamplesPerTask is n for pass@k (0: 1).
	SamplesPerTask int
	Shard          results.Shard
	// Force discards an existing result directory's samples and summary.
	Force bool
	// UnsafeNoSandbox is passed to tasks that execute code.
	UnsafeNoSandbox bool
	// Command and Build are recorded in the manifest.
	Command []string
	Build   results.BuildInfo
	// Progress receives progress events (nil: none).
	Progress Progress
	// Warn prints a warning (nil: discard).
	Warn func(format string, args ...any)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// BaselineRSS is the process's resident set (bytes) before the model
	// was loaded; when set, the manifest records the peak increase.
	BaselineRSS int64
	// InProcess reports whether the runtime runs inside this process.
	InProcess bool
}

// Progress is told about progress; implementations must be safe for
// concurrent use.
type Progress interface {
	// Start announces the total number of work items and how many were
	// already done by an earlier run.
	Start(total, done int)
	// Done reports one finished work item of task.
	Done(task string)
	// Finish is called once at the end.
	Finish()
}

// Result is what Run returns.
type Result struct {
	Summary  *results.Summary
	Manifest *results.Manifest
	// Resumed reports whether an existing directory was continued, and
	// Reused how many samples were taken from it.
	Resumed bool
	Reused  int
	// Generated counts samples produced by this invocation.
	Generated int
	// Errors counts samples that ended with an error.
	Errors int
}

// ConfigMismatchError is returned when OutDir holds a run with a different
// configuration.
type ConfigMismatchError struct {
	Dir   string
	Diffs []string
}

func (e *ConfigMismatchError) Error() string {
	return fmt.Sprintf("%s holds a run with a different configuration:\n  %s\nuse --force to start over, or choose another --out",
		e.Dir, strings.Join(e.Diffs, "\n  "))
}

// RequestChecker is implemented by runtimes that serve saved predictions:
// CheckRequests reports predictions that match none of the requests the
// tasks can make.
type RequestChecker interface {
	CheckRequests(reqs []runtime.Request) error
}

// ModeSetter is implemented by tasks with more than one scoring mode
// (multiple choice: "gen" and "loglik"); the returned task's Info carries
// the mode's metrics and version.
type ModeSetter interface {
	WithMode(mode string) (evals.Task, error)
}

// prepared is one task ready to run.
type prepared struct {
	task     evals.Task
	info     evals.TaskInfo
	data     *evals.Dataset
	selected []int // indexes into data.Samples
	cfg      results.TaskConfig
	closer   func() error
	loglik   bool
}

type workItem struct {
	p      *prepared
	idx    int // dataset index
	repeat int
}

// Run executes the evaluation.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.SamplesPerTask <= 0 {
		o.SamplesPerTask = 1
	}
	if o.Mode == "" {
		o.Mode = "gen"
	}
	if o.Warn == nil {
		o.Warn = func(string, ...any) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Progress == nil {
		o.Progress = nopProgress{}
	}
	if o.DatasetFile != "" && len(o.Tasks) != 1 {
		return nil, errors.New("--dataset-file needs exactly one task")
	}
	if len(o.Tasks) == 0 {
		return nil, errors.New("no tasks selected")
	}
	if o.Shard.Active() && (o.Shard.Index < 0 || o.Shard.Index >= o.Shard.Count) {
		return nil, fmt.Errorf("shard %d/%d: index must be in [0,%d)", o.Shard.Index, o.Shard.Count, o.Shard.Count)
	}

	env := map[string]any{}
	var envMu sync.Mutex
	evEnv := evals.Env{
		UnsafeNoSandbox: o.UnsafeNoSandbox,
		Record: func(k string, v any) {
			envMu.Lock()
			env[k] = v
			envMu.Unlock()
		},
		Warn: o.Warn,
	}

	// Load and prepare every task before touching the output directory, so
	// a configuration error never disturbs an existing result.
	var preps []*prepared
	defer func() {
		for _, p := range preps {
			if p.closer != nil {
				p.closer()
			}
		}
	}()
	for _, t := range o.Tasks {
		p, err := prepare(ctx, t, o, evEnv)
		if err != nil {
			return nil, err
		}
		preps = append(preps, p)
	}

	// Saved predictions for samples no task knows are a mistake (wrong
	// task name, another dataset version): refuse before generating.
	if chk, ok := o.Runtime.(RequestChecker); ok {
		var reqs []runtime.Request
		for _, p := range preps {
			if p.loglik {
				continue
			}
			for _, s := range p.data.Samples {
				req, err := p.task.Prompt(p.data, s, promptConfig(o))
				if err != nil {
					continue
				}
				req.ID, req.Task = s.ID, p.info.Name
				reqs = append(reqs, req)
			}
		}
		if err := chk.CheckRequests(reqs); err != nil {
			return nil, err
		}
	}

	cfg := results.Config{
		Runtime:        o.RuntimeName,
		Model:          o.Model,
		Generation:     o.Gen,
		Seed:           o.Gen.Seed,
		NumFewshot:     o.NumFewshot,
		Chat:           o.Chat,
		StripThinking:  o.StripThinking,
		Mode:           o.Mode,
		SamplesPerTask: o.SamplesPerTask,
		Limit:          o.Limit,
		Shard:          o.Shard,
	}
	for _, p := range preps {
		cfg.Tasks = append(cfg.Tasks, p.cfg)
	}

	if err := os.MkdirAll(filepath.Join(o.OutDir, results.SamplesDir), 0o755); err != nil {
		return nil, fmt.Errorf("create result directory: %w", err)
	}
	res := &Result{}
	man, err := results.ReadManifest(o.OutDir)
	switch {
	case err == nil && !o.Force:
		if man.Config.Fingerprint() != cfg.Fingerprint() {
			return nil, &ConfigMismatchError{Dir: o.OutDir, Diffs: man.Config.Diff(cfg)}
		}
		res.Resumed = true
		man.Resumes++
		man.Config = cfg // the limit may have grown
	case err == nil && o.Force, errors.Is(err, os.ErrNotExist):
		if err := clearDir(o.OutDir); err != nil {
			return nil, err
		}
		man = &results.Manifest{Start: o.Now().UTC()}
	default:
		return nil, fmt.Errorf("read existing result directory: %w", err)
	}
	man.Pocketeval = o.Build
	man.Command = o.Command
	man.Config = cfg
	if d, ok := o.Runtime.(runtime.Describer); ok {
		man.Runtime = d.Describe()
	} else {
		man.Runtime = runtime.Info{Name: o.RuntimeName}
	}
	man.Host = HostInfo()
	man.Environment = env
	man.Status = results.StatusRunning
	man.End = nil
	// A stale summary must never sit next to a run in progress.
	if err := os.Remove(filepath.Join(o.OutDir, results.SummaryFile)); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	if err := results.WriteManifest(o.OutDir, man); err != nil {
		return nil, err
	}
	res.Manifest = man

	// Work out what is left to do.
	writers := map[string]*results.SampleWriter{}
	defer func() {
		for _, w := range writers {
			w.Close()
		}
	}()
	var work []workItem
	total, done := 0, 0
	for _, p := range preps {
		path := results.SamplesPath(o.OutDir, p.info.Name)
		recs, rep, err := results.ReadSamples(path)
		if err != nil {
			return nil, err
		}
		if rep.TornBytes > 0 {
			o.Warn("%s: ignored an incomplete last line (%d bytes) left by an interrupted run", path, rep.TornBytes)
		}
		finished := map[results.Key]bool{}
		for _, r := range recs {
			if r.Error == "" {
				finished[r.Key()] = true
			}
		}
		w, err := results.OpenSampleWriter(path, rep.GoodBytes)
		if err != nil {
			return nil, err
		}
		writers[p.info.Name] = w
		for _, idx := range p.selected {
			for rep := 0; rep < o.SamplesPerTask; rep++ {
				total++
				if finished[results.Key{ID: p.data.Samples[idx].ID, Repeat: rep}] {
					done++
					continue
				}
				work = append(work, workItem{p: p, idx: idx, repeat: rep})
			}
		}
	}
	res.Reused = done
	o.Progress.Start(total, done)

	// Generate and score.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Concurrency)
	var mu sync.Mutex
	var fatal error
	for _, wi := range work {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			rec, err := runOne(gctx, o, wi)
			if err != nil {
				return err // cancellation or an unrecoverable failure
			}
			if err := writers[wi.p.info.Name].Append(rec); err != nil {
				return err
			}
			mu.Lock()
			res.Generated++
			if rec.Error != "" {
				res.Errors++
			}
			mu.Unlock()
			o.Progress.Done(wi.p.info.Name)
			return nil
		})
	}
	runErr := g.Wait()
	o.Progress.Finish()
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, context.Canceled) {
		fatal = runErr
	}
	interrupted := ctx.Err() != nil

	// Summarise from disk.
	sum := &results.Summary{Tasks: map[string]*results.TaskSummary{}}
	complete := !interrupted && fatal == nil
	for _, p := range preps {
		path := results.SamplesPath(o.OutDir, p.info.Name)
		w := writers[p.info.Name]
		w.Close()
		delete(writers, p.info.Name)
		recs, _, err := results.ReadSamples(path)
		if err != nil {
			return nil, err
		}
		ts, missing := Summarize(p.task, p.data, p.selected, o.SamplesPerTask, recs)
		ts.Warnings = append(ts.Warnings, p.data.Warnings...)
		sum.Tasks[p.info.Name] = ts
		sum.Order = append(sum.Order, p.info.Name)
		if missing > 0 {
			complete = false
		}
		if !interrupted && fatal == nil {
			if err := results.RewriteSorted(path, recs); err != nil {
				return nil, err
			}
		}
	}
	sum.Complete = complete
	if err := results.WriteSummary(o.OutDir, sum); err != nil {
		return nil, err
	}
	end := o.Now().UTC()
	man.End = &end
	if o.BaselineRSS > 0 {
		if peak := PeakRSS(); peak > 0 {
			man.Resources = &results.Resources{
				InProcess:      o.InProcess,
				BaselineRSSMB:  mb(o.BaselineRSS),
				PeakRSSMB:      mb(peak),
				PeakIncreaseMB: mb(peak - o.BaselineRSS),
			}
		}
	}
	man.Environment = env
	switch {
	case fatal != nil:
		man.Status = results.StatusFailed
	case interrupted:
		man.Status = results.StatusInterrupted
	default:
		man.Status = results.StatusComplete
	}
	if err := results.WriteManifest(o.OutDir, man); err != nil {
		return nil, err
	}
	res.Summary = sum
	if fatal != nil {
		return res, fatal
	}
	if interrupted {
		return res, ctx.Err()
	}
	return res, nil
}

func clearDir(dir string) error {
	for _, name := range []string{results.SummaryFile, results.ManifestFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, results.SamplesDir)); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(dir, results.SamplesDir), 0o755)
}

func prepare(ctx context.Context, t evals.Task, o Options, env evals.Env) (*prepared, error) {
	p := &prepared{task: t, info: t.Info()}
	if s, ok := t.(evals.Setupper); ok {
		nt, closer, err := s.Setup(ctx, env)
		if err != nil {
			return nil, fmt.Errorf("set up task %s: %w", p.info.Name, err)
		}
		p.task = nt
		if closer != nil {
			p.closer = closer.Close
		}
	}
	data, err := p.task.Load(ctx, evals.LoadConfig{
		DataDir: o.DataDir, DatasetFile: o.DatasetFile, NumFewshot: o.NumFewshot, Seed: o.Gen.Seed,
	})
	if err != nil {
		return nil, fmt.Errorf("load task %s: %w", p.info.Name, err)
	}
	if len(data.Samples) == 0 {
		return nil, fmt.Errorf("load task %s: the dataset has no samples", p.info.Name)
	}
	p.data = data
	ids := map[string]bool{}
	for i, s := range data.Samples {
		if ids[s.ID] {
			return nil, fmt.Errorf("load task %s: duplicate sample id %q", p.info.Name, s.ID)
		}
		ids[s.ID] = true
		if o.Limit > 0 && i >= o.Limit {
			break
		}
		if o.Shard.Active() && ShardOf(p.info.Name, s.ID, o.Shard.Count) != o.Shard.Index {
			continue
		}
		p.selected = append(p.selected, i)
	}
	if o.Mode == "loglik" {
		if _, ok := p.task.(evals.LoglikTask); ok {
			ll, ok := o.Runtime.(runtime.LogLikelihooder)
			if !ok {
				return nil, fmt.Errorf("task %s: --mode loglik needs a runtime that scores tokens: %w", p.info.Name, runtime.ErrNotSupported)
			}
			// An empty batch asks whether this runtime instance can score
			// (a server without logprobs, predictions without them).
			if _, err := ll.LogLikelihood(ctx, nil); errors.Is(err, runtime.ErrNotSupported) {
				return nil, fmt.Errorf("task %s: --mode loglik: %w", p.info.Name, err)
			}
			if m, ok := p.task.(ModeSetter); ok {
				nt, err := m.WithMode("loglik")
				if err != nil {
					return nil, fmt.Errorf("task %s: %w", p.info.Name, err)
				}
				p.task, p.info = nt, nt.Info()
			}
			p.loglik = true
		} else {
			o.Warn("task %s has no log-likelihood mode; it runs generatively", p.info.Name)
		}
	}
	// The prompt hash: the rendering of the first sample under the run's
	// settings identifies the template.
	first := data.Samples[0]
	var rendered any
	if p.loglik {
		rendered, err = p.task.(evals.LoglikTask).LoglikRequests(data, first, promptConfig(o))
	} else {
		rendered, err = p.task.Prompt(data, first, promptConfig(o))
	}
	if err != nil {
		return nil, fmt.Errorf("task %s: render sample %s: %w", p.info.Name, first.ID, err)
	}
	b, _ := json.Marshal(rendered)
	h := sha256.Sum256(b)
	// Dataset files are recorded relative to the data directory, so runs
	// made on different machines compare by content.
	files := map[string]string{}
	for k, v := range data.Files {
		if o.DataDir != "" && filepath.IsAbs(k) {
			if abs, err := filepath.Abs(o.DataDir); err == nil {
				if rel, err := filepath.Rel(abs, k); err == nil && !strings.HasPrefix(rel, "..") {
					k = filepath.ToSlash(rel)
				}
			}
		}
		files[k] = v
	}
	p.cfg = results.TaskConfig{
		Name: p.info.Name, Version: p.info.Version, DatasetFiles: files,
		PromptHash: hex.EncodeToString(h[:]), Samples: len(p.selected),
	}
	return p, nil
}

func promptConfig(o Options) evals.PromptConfig {
	return evals.PromptConfig{Gen: o.Gen, NumFewshot: o.NumFewshot, Chat: o.Chat}
}

// ShardOf returns the shard (0..count-1) a sample belongs to: FNV-1a of
// "task\x00id" modulo count. Stable across machines and versions.
func ShardOf(task, id string, count int) int {
	h := fnv.New64a()
	h.Write([]byte(task))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(count))
}

// runOne produces the record of one work item. It returns an error only
// for cancellation; runtime and scorer failures become the record's Error.
func runOne(ctx context.Context, o Options, wi workItem) (*results.Record, error) {
	s := wi.p.data.Samples[wi.idx]
	pc := promptConfig(o)
	pc.Gen.Seed = o.Gen.Seed + int64(wi.repeat)
	rec := &results.Record{
		Task: wi.p.info.Name, ID: s.ID, Repeat: wi.repeat, Index: wi.idx, Target: s.Target,
		Scores: map[string]float64{},
	}
	out := evals.Output{}
	if wi.p.loglik {
		reqs, err := wi.p.task.(evals.LoglikTask).LoglikRequests(wi.p.data, s, pc)
		if err != nil {
			rec.Error = "render: " + err.Error()
			return rec, nil
		}
		rec.Loglik = reqs
		lls, err := o.Runtime.(runtime.LogLikelihooder).LogLikelihood(ctx, reqs)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rec.Error = "runtime: " + err.Error()
			return rec, nil
		}
		rec.LoglikResults = lls
		out.Loglik = lls
	} else {
		req, err := wi.p.task.Prompt(wi.p.data, s, pc)
		if err != nil {
			rec.Error = "render: " + err.Error()
			return rec, nil
		}
		req.ID, req.Task = s.ID, wi.p.info.Name
		rec.Messages, rec.Prompt = req.Messages, req.Prompt
		if req.Gen.MaxTokens == 0 {
			req.Gen.MaxTokens = wi.p.info.DefaultMaxTokens
		}
		resp, err := o.Runtime.Generate(ctx, req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			rec.Error = "runtime: " + err.Error()
			return rec, nil
		}
		// Only what the runtime measured is recorded (replayed predictions
		// have no timings, so their result files are fully deterministic).
		if t := resp.Timings; t != (runtime.Timings{}) {
			rec.Timings = &t
		}
		rec.Response = resp.Text
		rec.FinishReason = resp.FinishReason
		rec.PromptTokens, rec.CompletionTokens = resp.PromptTokens, resp.CompletionTokens
		out.Raw, out.Text, out.FinishReason = resp.Text, resp.Text, resp.FinishReason
		out.Prompt = req.Prompt
		if o.StripThinking {
			out.Text = evals.StripThinking(resp.Text)
			if out.Text != resp.Text {
				st := out.Text
				rec.Scored = &st
			}
		}
	}
	score, err := wi.p.task.Score(ctx, s, out)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rec.Error = "score: " + err.Error()
		return rec, nil
	}
	rec.Scores = score.Values
	if rec.Scores == nil {
		rec.Scores = map[string]float64{}
	}
	rec.Extracted, rec.ExtractionFailed, rec.Details = score.Extracted, score.ExtractionFailed, score.Details
	return rec, nil
}

type nopProgress struct{}

func (nopProgress) Start(int, int) {}
func (nopProgress) Done(string)    {}
func (nopProgress) Finish()        {}

// sortedKeys returns m's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
