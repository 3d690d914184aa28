package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// settings decide which samples a task runs, how its prompts render and
// how it is scored. Run takes them from Options, Merge from the shards'
// manifest, so both prepare a task identically.
type settings struct {
	dataDir     string
	datasetFile string
	numFewshot  int
	seed        int64
	limit       int
	sampleIDs   map[string][]string // --samples; nil: all
	shard       results.Shard
	mode        string // "gen" or "loglik"
	repeats     int    // samples per task (n for pass@k)
	skipBad     bool   // skip malformed dataset records
	prompt      evals.PromptConfig
}

// configSettings rebuilds the settings of a run from its manifest's Config
// (without its shard: Merge prepares the whole selection).
func configSettings(c results.Config, dataDir string) settings {
	return settings{
		dataDir: dataDir, numFewshot: c.NumFewshot, seed: c.Seed, limit: c.Limit, sampleIDs: c.SampleIDs, mode: c.Mode,
		repeats: max(c.SamplesPerTask, 1), skipBad: c.SkipBadRecords,
		prompt: evals.PromptConfig{Gen: c.Generation, NumFewshot: c.NumFewshot, Chat: c.Chat},
	}
}

// prepared is one task ready to run: loaded, its samples selected, its
// scoring mode applied and its configuration (with the prompt hash)
// computed.
type prepared struct {
	task     evals.Task
	info     evals.TaskInfo
	data     *evals.Dataset
	selected []int // indexes into data.Samples, in dataset order
	cfg      results.TaskConfig
	loglik   bool
	closer   func() error // from Setup; nil when none
	// released is set while the dataset is let go (releaseWaiting).
	released *released
}

// preparedTasks are a run's tasks in run order.
type preparedTasks []*prepared

// close releases what the tasks' Setup acquired.
func (ps preparedTasks) close() {
	for _, p := range ps {
		if p.closer != nil {
			p.closer()
		}
	}
}

// prepareTasks is Run's prepare phase: every task is set up (Setup),
// loaded and selected. It needs no runtime.
func prepareTasks(ctx context.Context, o Options, env *environment) (preparedTasks, error) {
	ev := evals.Env{UnsafeNoSandbox: o.UnsafeNoSandbox, Record: env.record, Warn: o.Warn}
	s := o.settings()
	var preps preparedTasks
	for _, t := range o.Tasks {
		t, closer, err := setup(ctx, t, ev)
		if err != nil {
			return preps, err
		}
		p, err := prepare(ctx, t, s, o.Warn)
		if p != nil {
			p.closer = closer
			preps = append(preps, p)
		} else if closer != nil {
			closer()
		}
		if err != nil {
			return preps, err
		}
	}
	return preps, nil
}

// checkRuntime checks the prepared tasks against the open runtime before
// the result directory is touched: log-likelihood where a task scores by
// it, saved predictions that match no sample, and requests that cannot
// succeed (preflight).
func checkRuntime(ctx context.Context, o Options, preps preparedTasks, rc *renderCache) error {
	for _, p := range preps {
		if p.loglik && rolling(p.task) {
			rl, ok := o.Runtime.(runtime.RollingLoglikelihooder)
			if !ok {
				return fmt.Errorf("task %s: loglikelihood_rolling needs a runtime that scores whole texts in windows (llamacpp, mnn, openai against pocketeval serve): %w", p.info.Name, runtime.ErrNotSupported)
			}
			// An empty batch asks a remote runtime whether it can.
			if _, err := rl.LoglikelihoodRolling(ctx, nil); err != nil {
				return fmt.Errorf("task %s: loglikelihood_rolling: %w", p.info.Name, err)
			}
		} else if p.loglik {
			if err := checkLoglik(ctx, o.Runtime, p.info.Name); err != nil {
				return err
			}
		}
	}
	if err := checkRequests(o.Runtime, preps, rc); err != nil {
		return err
	}
	return preflight(o, preps, rc)
}

// setup runs a task's Setup, if it has one.
func setup(ctx context.Context, t evals.Task, env evals.Env) (evals.Task, func() error, error) {
	s, ok := t.(evals.Setupper)
	if !ok {
		return t, nil, nil
	}
	nt, closer, err := s.Setup(ctx, env)
	if err != nil {
		return nil, nil, fmt.Errorf("set up task %s: %w", t.Info().Name, err)
	}
	if closer == nil {
		return nt, nil, nil
	}
	return nt, closer.Close, nil
}

// prepare loads t, selects its samples, applies the scoring mode and
// computes its configuration. It returns a partly filled prepared (for
// closing) with any error after Load.
func prepare(ctx context.Context, t evals.Task, s settings, warn func(string, ...any)) (*prepared, error) {
	p := &prepared{task: t, info: t.Info()}
	data, err := t.Load(ctx, evals.LoadConfig{
		DataDir: s.dataDir, DatasetFile: s.datasetFile, NumFewshot: s.numFewshot, Seed: s.seed,
		SkipBadRecords: s.skipBad,
	})
	if err != nil {
		return nil, fmt.Errorf("load task %s: %w", p.info.Name, err)
	}
	for _, w := range data.Warnings {
		warn("%s: %s", p.info.Name, w) // shown now, not only in summary.json
	}
	p.data = data
	if p.selected, err = selectSamples(p.info.Name, data.Samples, s.limit, s.shard); err != nil {
		return p, err
	}
	if s.sampleIDs != nil {
		if p.selected, err = selectIDs(p.info.Name, data.Samples, p.selected, s.sampleIDs[p.info.Name]); err != nil {
			return p, err
		}
	}
	if taskMode(t, s.mode) == "loglik" {
		if err := p.useLoglik(warn); err != nil {
			return p, err
		}
	}
	hash, err := p.promptHash(s.prompt)
	if err != nil {
		return p, err
	}
	p.cfg = results.TaskConfig{
		Name: p.info.Name, Version: p.info.Version, DatasetFiles: relativeFiles(data.Files, s.dataDir),
		PromptHash: hash, Samples: len(p.selected),
	}
	if op, ok := t.(evals.Optioner); ok {
		p.cfg.Options = op.TaskOptions()
	}
	return p, nil
}

// taskMode is a task's scoring mode: the run's --mode when given, else
// the task's own default (task files with output_type multiple_choice
// score by log-likelihood), else gen.
func taskMode(t evals.Task, mode string) string {
	if mode != "" {
		return mode
	}
	if d, ok := t.(evals.DefaultModer); ok {
		return d.DefaultMode()
	}
	return "gen"
}

// selectSamples returns the dataset indexes a run evaluates: the first
// limit samples (0: all) that fall in shard. Sample ids must be unique.
func selectSamples(task string, samples []evals.Sample, limit int, shard results.Shard) ([]int, error) {
	if len(samples) == 0 {
		return nil, fmt.Errorf("load task %s: the dataset has no samples", task)
	}
	ids := make(map[string]bool, len(samples))
	var selected []int
	for i, s := range samples {
		if ids[s.ID] {
			return nil, fmt.Errorf("load task %s: duplicate sample id %q", task, s.ID)
		}
		ids[s.ID] = true
		if limit > 0 && i >= limit {
			continue
		}
		if shard.Active() && ShardOf(task, s.ID, shard.Count) != shard.Index {
			continue
		}
		selected = append(selected, i)
	}
	return selected, nil
}

// useLoglik switches the task to log-likelihood scoring when it has such a
// mode; other tasks keep generating, with a warning.
func (p *prepared) useLoglik(warn func(string, ...any)) error {
	if _, ok := p.task.(evals.LoglikTask); !ok {
		warn("task %s has no log-likelihood mode; it runs generatively", p.info.Name)
		return nil
	}
	if m, ok := p.task.(evals.ModeSetter); ok {
		nt, err := m.WithMode("loglik")
		if err != nil {
			return fmt.Errorf("task %s: %w", p.info.Name, err)
		}
		p.task, p.info = nt, nt.Info()
	}
	p.loglik = true
	return nil
}

// promptHash renders the first sample under the run's settings: its hash
// identifies the template.
func (p *prepared) promptHash(pc evals.PromptConfig) (string, error) {
	first := p.data.Samples[0]
	var rendered any
	var err error
	if p.loglik {
		rendered, err = p.task.(evals.LoglikTask).LoglikRequests(p.data, first, pc)
	} else {
		rendered, err = p.task.Prompt(p.data, first, pc)
	}
	if err != nil {
		return "", fmt.Errorf("task %s: render sample %s: %w", p.info.Name, first.ID, err)
	}
	b, _ := json.Marshal(rendered)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// items lists the work items of the selection: every selected sample
// times every repeat, in dataset order.
func (p *prepared) items(repeats int) []workItem {
	out := make([]workItem, 0, len(p.selected)*repeats)
	for _, idx := range p.selected {
		for rep := 0; rep < repeats; rep++ {
			out = append(out, workItem{p: p, idx: idx, repeat: rep})
		}
	}
	return out
}

// relativeFiles records dataset files relative to the data directory, so
// runs made on different machines compare by content.
func relativeFiles(files map[string]string, dataDir string) map[string]string {
	out := make(map[string]string, len(files))
	abs, absErr := filepath.Abs(dataDir)
	for k, v := range files {
		if dataDir != "" && absErr == nil && filepath.IsAbs(k) {
			if rel, err := filepath.Rel(abs, k); err == nil && !strings.HasPrefix(rel, "..") {
				k = filepath.ToSlash(rel)
			}
		}
		out[k] = v
	}
	return out
}

// checkLoglik asks whether the runtime can score tokens: an empty batch
// tells a runtime instance that cannot (a server without logprobs,
// predictions without them) from one that can.
func checkLoglik(ctx context.Context, rt runtime.Runtime, task string) error {
	ll, ok := rt.(runtime.LogLikelihooder)
	if !ok {
		return fmt.Errorf("task %s: log-likelihood mode needs a runtime that scores tokens: %w", task, runtime.ErrNotSupported)
	}
	if _, err := ll.LogLikelihood(ctx, nil); errors.Is(err, runtime.ErrNotSupported) {
		return fmt.Errorf("task %s: log-likelihood mode: %w", task, err)
	}
	return nil
}

// checkRequests refuses saved predictions for samples no task knows (a
// wrong task name, another dataset version) before anything is generated.
func checkRequests(rt runtime.Runtime, preps preparedTasks, rc *renderCache) error {
	chk, ok := rt.(RequestChecker)
	if !ok {
		return nil
	}
	prompts := true
	if m, ok := rt.(PromptMatcher); ok {
		prompts = m.MatchesPrompts()
	}
	if tc, ok := rt.(TaskIDChecker); ok && !prompts {
		// Tasks and ids alone: no request is built. The list is made at
		// its size (grown, it touched fresh pages several times over).
		n := 0
		for _, p := range preps {
			if !p.loglik {
				n += len(p.data.Samples)
			}
		}
		keys := make([][2]string, 0, n)
		for _, p := range preps {
			if !p.loglik {
				for _, s := range p.data.Samples {
					keys = append(keys, [2]string{p.info.Name, s.ID})
				}
			}
		}
		return tc.CheckTaskIDs(keys)
	}
	n := 0
	for _, p := range preps {
		if !p.loglik {
			n += len(p.data.Samples)
		}
	}
	reqs := make([]runtime.Request, 0, n)
	for _, p := range preps {
		if p.loglik {
			continue
		}
		for i, s := range p.data.Samples {
			if !prompts {
				reqs = append(reqs, runtime.Request{ID: s.ID, Task: p.info.Name})
				continue
			}
			req, err := rc.render(p, i)
			if err != nil {
				continue
			}
			req.ID, req.Task = s.ID, p.info.Name
			reqs = append(reqs, req)
		}
	}
	return chk.CheckRequests(reqs)
}

// ShardOf returns the shard (0..count-1) a sample belongs to
// (results.ShardOf, where readers of result directories find it too).
func ShardOf(task, id string, count int) int { return results.ShardOf(task, id, count) }
