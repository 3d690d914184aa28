package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Dirs are the shard result directories.
	Dirs []string
	// Out is the merged result directory (must not exist or be empty).
	Out string
	// Lookup resolves a task name from a manifest to a task.
	Lookup func(name string) (evals.Task, error)
	// DataDir is the dataset root (to recompute the selection and
	// aggregates exactly as an unsharded run would).
	DataDir string
	Build   results.BuildInfo
	Command []string
	Now     func() time.Time
	// NoRescore skips re-scoring the shards' responses (by default every
	// one is re-scored and a shard whose stored scores differ is refused).
	NoRescore bool
}

// Merge combines the result directories of `run --shard i/N` into one, after
// checking that they come from the same configuration, that every shard
// 0..N-1 is present once and finished, and that every selected sample
// appears exactly once. Each task is prepared exactly as Run prepares it
// (from the shards' configuration: scoring mode, few-shot, seed, limit,
// task options), its version, dataset files and prompt hash must match
// the shards', and
// the merged summary is computed by the same code as an unsharded run, from
// the same records, so it is identical to it.
func Merge(ctx context.Context, o MergeOptions) (*results.Summary, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	mans, err := readShards(o.Dirs)
	if err != nil {
		return nil, err
	}
	count, err := checkShards(o.Dirs, mans)
	if err != nil {
		return nil, err
	}
	if err := checkMergeOut(o.Out); err != nil {
		return nil, err
	}
	// Everything is read and checked before --out is touched: a refused
	// merge leaves nothing behind.
	cfg := mans[0].Config
	cfg.Shard = results.Shard{}
	s := configSettings(cfg, o.DataDir)
	sum := &results.Summary{Tasks: map[string]*results.TaskSummary{}, Complete: true}
	merged := make([][]results.Record, len(cfg.Tasks))
	for ti, tc := range cfg.Tasks {
		p, err := prepareRecorded(ctx, o.Lookup, tc, s, cfg.UnsafeNoSandbox, func(string, ...any) {})
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		all, err := shardRecords(o.Dirs, mans, tc.Name, count)
		if err == nil && !o.NoRescore {
			err = rescoreShards(ctx, p, s, cfg.StripThinking, o.Dirs, tc.Name)
		}
		p.closeSetup()
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		ts, miss := summarizeTask(p, s.repeats, all)
		if miss > 0 {
			return nil, fmt.Errorf("merge: task %s: %d of %d samples are in no shard", tc.Name, miss, ts.Samples)
		}
		if len(all) != ts.Samples {
			return nil, fmt.Errorf("merge: task %s: the shards hold %d samples, the selection has %d", tc.Name, len(all), ts.Samples)
		}
		sum.Tasks[tc.Name] = ts
		sum.Order = append(sum.Order, tc.Name)
		merged[ti] = all
		cfg.Tasks[ti].Samples = len(p.selected)
	}
	if len(cfg.Groups) > 0 {
		if err := checkGroups(cfg.Groups, sum.Order); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		sum.Groups, sum.GroupOrder = SummarizeGroups(cfg.Groups, sum.Tasks)
	}
	lock, err := results.LockDir(o.Out)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer lock.Unlock()
	if err := checkMergeOut(o.Out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(o.Out, results.SamplesDir), 0o755); err != nil {
		return nil, err
	}
	for ti, tc := range cfg.Tasks {
		if err := results.RewriteSorted(results.SamplesPath(o.Out, tc.Name), merged[ti]); err != nil {
			return nil, err
		}
	}
	if err := results.WriteSummary(o.Out, sum); err != nil {
		return nil, err
	}
	mm := mergedManifest(o, mans, cfg)
	if mm.SamplesSHA256, err = results.Digests(o.Out, sum.Order); err != nil {
		return nil, err
	}
	if err := results.WriteManifest(o.Out, mm); err != nil {
		return nil, err
	}
	return sum, nil
}

// checkMergeOut refuses an output directory that already holds samples.
func checkMergeOut(out string) error {
	if entries, _ := os.ReadDir(filepath.Join(out, results.SamplesDir)); len(entries) > 0 {
		return &OutNotEmptyError{Dir: out}
	}
	return nil
}

// OutNotEmptyError is a merge into a directory that already holds samples.
type OutNotEmptyError struct{ Dir string }

func (e *OutNotEmptyError) Error() string {
	return fmt.Sprintf("merge: %s already holds samples", e.Dir)
}

// readShards reads the shards' manifests; every shard must be complete.
func readShards(dirs []string) ([]*results.Manifest, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge: no directories given")
	}
	var mans []*results.Manifest
	for _, d := range dirs {
		m, err := results.ReadManifest(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", d, err)
		}
		if m.Status != results.StatusComplete {
			return nil, fmt.Errorf("merge: %s: the run is %s, not complete; finish it first (run the same command again)", d, m.Status)
		}
		mans = append(mans, m)
	}
	return mans, nil
}

// checkShards checks that the shards share one configuration apart from
// the shard index and that each index 0..N-1 appears once; it returns N.
func checkShards(dirs []string, mans []*results.Manifest) (int, error) {
	count := max(mans[0].Config.Shard.Count, 1)
	seen := map[int]string{}
	for i, m := range mans {
		c := m.Config
		if c.Shard.Count != mans[0].Config.Shard.Count {
			return 0, fmt.Errorf("merge: %s is shard %s but %s is shard %s: different shard counts", dirs[i], c.Shard, dirs[0], mans[0].Config.Shard)
		}
		if prev, dup := seen[c.Shard.Index]; dup {
			return 0, fmt.Errorf("merge: %s and %s are both shard %s", prev, dirs[i], c.Shard)
		}
		seen[c.Shard.Index] = dirs[i]
		a, b := mans[0].Config, c
		a.Shard, b.Shard = results.Shard{}, results.Shard{}
		if a.Fingerprint() != b.Fingerprint() || a.Limit != b.Limit {
			diffs := a.Diff(b)
			if a.Limit != b.Limit {
				diffs = append(diffs, fmt.Sprintf("limit: %d vs %d", a.Limit, b.Limit))
			}
			return 0, fmt.Errorf("merge: %s and %s come from different configurations:\n  %s", dirs[0], dirs[i], strings.Join(diffs, "\n  "))
		}
	}
	var missing []string
	for i := 0; i < count; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("merge: missing shards %s", strings.Join(missing, ", "))
	}
	return count, nil
}

// prepareRecorded prepares the task of tc as the run that recorded it
// prepared it (with the task options it recorded, set up as it was, so a
// code task can run its tests again) and checks that it is the same task
// on the same data.
func prepareRecorded(ctx context.Context, lookup func(string) (evals.Task, error), tc results.TaskConfig, s settings, unsafeNoSandbox bool, warn func(string, ...any)) (*prepared, error) {
	task, err := lookup(tc.Name)
	if err != nil {
		return nil, err
	}
	if len(tc.Options) > 0 {
		op, ok := task.(evals.Optioner)
		if !ok {
			return nil, fmt.Errorf("task %s ran with options %v, which this pocketeval's task does not take", tc.Name, tc.Options)
		}
		if task, err = op.WithTaskOptions(tc.Options); err != nil {
			return nil, err
		}
	}
	task, closer, err := setup(ctx, task, evals.Env{UnsafeNoSandbox: unsafeNoSandbox, Record: func(string, any) {}, Warn: warn})
	if err != nil {
		return nil, err
	}
	p, err := prepare(ctx, task, s, func(string, ...any) {})
	if err == nil {
		err = checkRecorded(p, tc)
	}
	if err != nil {
		if closer != nil {
			closer()
		}
		return nil, err
	}
	p.closer = closer
	return p, nil
}

// checkRecorded checks that the prepared task is the recorded one: its
// version, dataset files and rendered prompts.
func checkRecorded(p *prepared, tc results.TaskConfig) error {
	if p.info.Version != tc.Version {
		return fmt.Errorf("task %s is version %s in the recorded run but %s in this pocketeval", tc.Name, tc.Version, p.info.Version)
	}
	for _, f := range slices.Sorted(maps.Keys(tc.DatasetFiles)) {
		if got := p.cfg.DatasetFiles[f]; got != tc.DatasetFiles[f] {
			return fmt.Errorf("task %s: dataset %s has sha256 %.12s here but %.12s in the recorded run", tc.Name, f, got, tc.DatasetFiles[f])
		}
	}
	if p.cfg.PromptHash != tc.PromptHash {
		return fmt.Errorf("task %s: its prompts render differently here than in the recorded run (prompt template hash %.12s vs %.12s)", tc.Name, p.cfg.PromptHash, tc.PromptHash)
	}
	return nil
}

// shardRecords collects a task's records from every shard, refusing
// unfinished files, a sample in two shards or in the wrong one.
func shardRecords(dirs []string, mans []*results.Manifest, task string, count int) ([]results.Record, error) {
	var all []results.Record
	owner := map[results.Key]string{}
	for di, d := range dirs {
		recs, rep, err := results.ReadTaskSamples(d, task)
		if err != nil {
			return nil, err
		}
		if rep.TornBytes > 0 || rep.Duplicates > 0 {
			return nil, fmt.Errorf("%s: samples of %s were not finalised (torn or duplicate lines)", d, task)
		}
		for _, r := range recs {
			if prev, dup := owner[r.Key()]; dup {
				return nil, fmt.Errorf("task %s sample %s (repeat %d) is in both %s and %s", task, r.ID, r.Repeat, prev, d)
			}
			if want := ShardOf(task, r.ID, count); count > 1 && want != mans[di].Config.Shard.Index {
				return nil, fmt.Errorf("%s: task %s sample %s belongs to shard %d/%d", d, task, r.ID, want, count)
			}
			owner[r.Key()] = d
			all = append(all, r)
		}
	}
	return all, nil
}

// mergedManifest describes the merged run: the shards' configuration
// without the shard, their earliest start, and where it was merged from.
func mergedManifest(o MergeOptions, mans []*results.Manifest, cfg results.Config) *results.Manifest {
	end := o.Now().UTC()
	start := mans[0].Start
	for _, m := range mans {
		if m.Start.Before(start) {
			start = m.Start
		}
	}
	dirs := append([]string(nil), o.Dirs...)
	sort.Strings(dirs)
	var segs []results.Segment
	resumes := 0
	for _, m := range mans {
		for _, s := range m.Segments {
			s.Shard = m.Config.Shard.String()
			segs = append(segs, s)
		}
		resumes += m.Resumes
	}
	sort.SliceStable(segs, func(i, j int) bool { return segs[i].Start.Before(segs[j].Start) })
	var rep *results.Reproducibility
	for _, m := range mans {
		why := ""
		switch {
		case m.Reproducible == nil:
			why = "a shard did not record whether its responses are reproducible"
		case !m.Reproducible.Exact:
			why = m.Reproducible.Why
		}
		rep = rep.Combine(why)
	}
	return &results.Manifest{
		Reproducible: rep,
		Pocketeval:   o.Build, Command: o.Command, Config: cfg, Runtime: mans[0].Runtime,
		Host: mans[0].Host, Environment: map[string]any{"merged_from": dirs},
		Status: results.StatusComplete, Start: start, End: &end, Resumes: resumes, Segments: segs,
	}
}

// rescoreShards re-scores a task's records in every shard and refuses
// those whose stored scores differ (*MismatchError).
func rescoreShards(ctx context.Context, p *prepared, s settings, strip bool, dirs []string, task string) error {
	var all []Mismatch
	for _, d := range dirs {
		recs, _, err := results.ReadTaskSamples(d, task)
		if err != nil {
			return err
		}
		ms, err := rescore(ctx, p, s, strip, results.SamplesPath(d, task), recs, 0, nil)
		if err != nil {
			return err
		}
		all = append(all, ms...)
	}
	if len(all) > 0 {
		return &MismatchError{Op: "task " + task, Mismatches: all}
	}
	return nil
}
