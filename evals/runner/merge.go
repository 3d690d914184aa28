package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
}

// Merge combines the result directories of `run --shard i/N` into one, after
// checking that they come from the same configuration, that every shard
// 0..N-1 is present once and finished, and that every selected sample
// appears exactly once. The merged summary is computed by the same code as
// an unsharded run, from the same records, so it is identical to it.
func Merge(ctx context.Context, o MergeOptions) (*results.Summary, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(o.Dirs) == 0 {
		return nil, errors.New("merge: no directories given")
	}
	var mans []*results.Manifest
	for _, d := range o.Dirs {
		m, err := results.ReadManifest(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", d, err)
		}
		if m.Status != results.StatusComplete {
			return nil, fmt.Errorf("merge: %s: the run is %s, not complete; finish it first (run the same command again)", d, m.Status)
		}
		mans = append(mans, m)
	}
	// Same configuration apart from the shard index.
	count := mans[0].Config.Shard.Count
	if count < 1 {
		count = 1
	}
	seen := map[int]string{}
	for i, m := range mans {
		c := m.Config
		if c.Shard.Count != mans[0].Config.Shard.Count {
			return nil, fmt.Errorf("merge: %s is shard %s but %s is shard %s: different shard counts", o.Dirs[i], c.Shard, o.Dirs[0], mans[0].Config.Shard)
		}
		if prev, dup := seen[c.Shard.Index]; dup {
			return nil, fmt.Errorf("merge: %s and %s are both shard %s", prev, o.Dirs[i], c.Shard)
		}
		seen[c.Shard.Index] = o.Dirs[i]
		a, b := mans[0].Config, c
		a.Shard, b.Shard = results.Shard{}, results.Shard{}
		if a.Fingerprint() != b.Fingerprint() || a.Limit != b.Limit {
			diffs := a.Diff(b)
			if a.Limit != b.Limit {
				diffs = append(diffs, fmt.Sprintf("limit: %d vs %d", a.Limit, b.Limit))
			}
			return nil, fmt.Errorf("merge: %s and %s come from different configurations:\n  %s", o.Dirs[0], o.Dirs[i], strings.Join(diffs, "\n  "))
		}
	}
	var missing []string
	for i := 0; i < count; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, count))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: missing shards %s", strings.Join(missing, ", "))
	}
	if err := os.MkdirAll(filepath.Join(o.Out, results.SamplesDir), 0o755); err != nil {
		return nil, err
	}
	if entries, _ := os.ReadDir(filepath.Join(o.Out, results.SamplesDir)); len(entries) > 0 {
		return nil, fmt.Errorf("merge: %s already holds samples; choose an empty --out", o.Out)
	}

	cfg := mans[0].Config
	cfg.Shard = results.Shard{}
	sum := &results.Summary{Tasks: map[string]*results.TaskSummary{}, Complete: true}
	for ti, tc := range cfg.Tasks {
		task, err := o.Lookup(tc.Name)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		info := task.Info()
		if info.Version != tc.Version {
			return nil, fmt.Errorf("merge: task %s is version %s in the shards but %s in this pocketeval", tc.Name, tc.Version, info.Version)
		}
		data, err := task.Load(ctx, evals.LoadConfig{DataDir: o.DataDir, NumFewshot: cfg.NumFewshot, Seed: cfg.Seed})
		if err != nil {
			return nil, fmt.Errorf("merge: load task %s: %w", tc.Name, err)
		}
		for f, h := range tc.DatasetFiles {
			if got, ok := data.Files[f]; ok && got != h {
				return nil, fmt.Errorf("merge: task %s: dataset %s has sha256 %.12s here but %.12s in the shards", tc.Name, f, got, h)
			}
		}
		var selected []int
		for i := range data.Samples {
			if cfg.Limit > 0 && i >= cfg.Limit {
				break
			}
			selected = append(selected, i)
		}
		var all []results.Record
		owner := map[results.Key]string{}
		for di, d := range o.Dirs {
			recs, rep, err := results.ReadSamples(results.SamplesPath(d, tc.Name))
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			if rep.TornBytes > 0 || rep.Duplicates > 0 {
				return nil, fmt.Errorf("merge: %s: samples of %s were not finalised (torn or duplicate lines)", d, tc.Name)
			}
			for _, r := range recs {
				if prev, dup := owner[r.Key()]; dup {
					return nil, fmt.Errorf("merge: task %s sample %s (repeat %d) is in both %s and %s", tc.Name, r.ID, r.Repeat, prev, d)
				}
				if want := ShardOf(tc.Name, r.ID, count); count > 1 && want != mans[di].Config.Shard.Index {
					return nil, fmt.Errorf("merge: %s: task %s sample %s belongs to shard %d/%d", d, tc.Name, r.ID, want, count)
				}
				owner[r.Key()] = d
				all = append(all, r)
			}
		}
		ts, miss := Summarize(task, data, selected, cfg.SamplesPerTask, all)
		if miss > 0 {
			return nil, fmt.Errorf("merge: task %s: %d of %d samples are in no shard", tc.Name, miss, ts.Samples)
		}
		ts.Warnings = append(ts.Warnings, data.Warnings...)
		if len(all) != ts.Samples {
			return nil, fmt.Errorf("merge: task %s: the shards hold %d samples, the selection has %d", tc.Name, len(all), ts.Samples)
		}
		sum.Tasks[tc.Name] = ts
		sum.Order = append(sum.Order, tc.Name)
		if err := results.RewriteSorted(results.SamplesPath(o.Out, tc.Name), all); err != nil {
			return nil, err
		}
		cfg.Tasks[ti].Samples = len(selected)
	}
	if err := results.WriteSummary(o.Out, sum); err != nil {
		return nil, err
	}
	end := o.Now().UTC()
	start := mans[0].Start
	for _, m := range mans {
		if m.Start.Before(start) {
			start = m.Start
		}
	}
	dirs := append([]string(nil), o.Dirs...)
	sort.Strings(dirs)
	man := &results.Manifest{
		Pocketeval: o.Build, Command: o.Command, Config: cfg, Runtime: mans[0].Runtime,
		Host: mans[0].Host, Environment: map[string]any{"merged_from": dirs},
		Status: results.StatusComplete, Start: start, End: &end,
	}
	if err := results.WriteManifest(o.Out, man); err != nil {
		return nil, err
	}
	return sum, nil
}
