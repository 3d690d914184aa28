package runner

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// config is the run's configuration as the manifest records it.
func (o *Options) config(preps preparedTasks) results.Config {
	cfg := results.Config{
		Runtime:         o.RuntimeName,
		Model:           o.Model,
		Generation:      o.Gen,
		Seed:            o.Gen.Seed,
		NumFewshot:      o.NumFewshot,
		Chat:            o.Chat,
		StripThinking:   o.StripThinking,
		Mode:            o.Mode,
		SamplesPerTask:  o.SamplesPerTask,
		Limit:           o.Limit,
		SampleIDs:       o.SampleIDs,
		Shard:           o.Shard,
		SkipBadRecords:  o.SkipBadRecords,
		RuntimeSettings: o.RuntimeSettings,
		UnsafeNoSandbox: o.UnsafeNoSandbox,
		ModifiedData:    o.ModifiedData,
	}
	for _, p := range preps {
		cfg.Tasks = append(cfg.Tasks, p.cfg)
	}
	cfg.Groups = o.Groups
	if ct, ok := o.Runtime.(runtime.ChatTemplater); ok && o.Chat {
		info := ct.ChatTemplate()
		cfg.ChatTemplate = &info
	}
	return cfg
}

// openDir is Run's open phase: it creates the result directory or resumes
// the run in it (refusing a different configuration unless Force), removes
// any stale summary and writes the manifest with status running. It
// reports whether an existing run was resumed.
func openDir(o Options, preps preparedTasks, env *environment) (*results.Manifest, bool, error) {
	cfg := o.config(preps)
	if err := os.MkdirAll(filepath.Join(o.OutDir, results.SamplesDir), 0o755); err != nil {
		return nil, false, fmt.Errorf("create result directory: %w", err)
	}
	// With Force the run starts over whatever the directory holds: its
	// manifest is not read (decoding it took a one-task replay about a
	// millisecond), and one that cannot be read is no obstacle.
	man, err := &results.Manifest{}, error(os.ErrNotExist)
	if !o.Force {
		man, err = results.ReadManifest(o.OutDir)
	}
	resumed := false
	switch {
	case err == nil:
		if man.Config.Fingerprint() != cfg.Fingerprint() {
			return nil, false, &ConfigMismatchError{Dir: o.OutDir, Diffs: man.Config.Diff(cfg)}
		}
		resumed = true
		man.Resumes++
	case errors.Is(err, os.ErrNotExist):
		if err := clearDir(o.OutDir); err != nil {
			return nil, false, err
		}
		man = &results.Manifest{Start: o.Now().UTC()}
	default:
		return nil, false, fmt.Errorf("read existing result directory: %w", err)
	}
	man.Pocketeval = o.Build
	man.Command = o.Command
	man.Config = cfg // the limit may have grown
	man.Runtime = runtime.Info{Name: o.RuntimeName}
	if d, ok := o.Runtime.(runtime.Describer); ok {
		man.Runtime = d.Describe()
	}
	man.Host = HostInfo()
	man.Environment = env.snapshot()
	man.Reproducible = reproducibility(man, resumed, o.Nondeterminism)
	man.Status = results.StatusRunning
	man.End = nil
	man.Segments = append(man.Segments, results.Segment{
		Start: o.Now().UTC(), Command: o.Command, Pocketeval: o.Build,
		Concurrency: o.Concurrency, Threads: o.Threads, Runtime: man.Runtime, Host: man.Host,
		Status: results.StatusRunning,
	})
	// A stale summary must never sit next to a run in progress.
	if err := os.Remove(filepath.Join(o.OutDir, results.SummaryFile)); err != nil && !os.IsNotExist(err) {
		return nil, false, err
	}
	if err := results.WriteManifest(o.OutDir, man); err != nil {
		return nil, false, err
	}
	return man, resumed, nil
}

// clearDir removes a result directory's files so a run starts over.
func clearDir(dir string) error {
	for _, name := range []string{results.SummaryFile, results.ManifestFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, results.SamplesDir)); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dir, ConversationsDir)); err != nil {
		return err
	}
	return os.MkdirAll(filepath.Join(dir, results.SamplesDir), 0o755)
}

// reproducibility is the run's reproducibility once this invocation works
// on it: exact only if every invocation was.
func reproducibility(man *results.Manifest, resumed bool, why string) *results.Reproducibility {
	if resumed && man.Reproducible == nil {
		return &results.Reproducibility{Why: cmp.Or(why, "an earlier invocation of this run did not record whether its responses are reproducible")}
	}
	return man.Reproducible.Combine(why)
}
