// Package rundir reads finished result directories for every report that
// turns them into decisions: it loads and verifies a run, and computes the
// per-task scores and suite averages (SuiteAverage, SuiteOf) that
// `suite`, `compare` (package compare), `gate` (package gate) and
// `leaderboard` (package leaderboard) all show.
//
// It never re-scores anything: it reads the per-sample scores in
// samples/<task>.jsonl as the runs wrote them, recomputes from them what
// summary.json caches, and refuses a directory whose summary disagrees.
package rundir

import (
	"fmt"
	"path/filepath"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/results"
)

// Run is one result directory, loaded.
type Run struct {
	Dir      string
	Name     string // display name: the model file's (or MNN package's) base name, else the dir
	Manifest *results.Manifest
	Summary  *results.Summary
	// Bench is the directory's bench.json, a bench --json report saved
	// with the run (nil if none).
	Bench   *BenchReport
	records map[string][]results.Record // lazily loaded per task
}

// Load reads a result directory's manifest, summary and samples. It
// refuses a directory without a summary (a run in progress or killed) and
// says so. The samples are authoritative: every per-sample number of the
// summary is recomputed from them and must agree (see verify); a bad line
// is a *results.SampleError naming the file and line, a disagreement an
// *InconsistentError.
func Load(dir string) (*Run, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("load run %s: %w", dir, err)
	}
	s, err := results.ReadSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("load run %s: no readable summary.json (is the run finished? status %q): %w", dir, m.Status, err)
	}
	// A manifest still "running" is a run in progress, one cut off between
	// writing its summary and its manifest, or one edited to skip the
	// digest check: not a result, whatever its summary says.
	if m.Status == results.StatusRunning {
		return nil, regfile.Unusable("", &results.IncompleteError{Dir: dir, Status: m.Status})
	}
	if err := results.CheckDigests(dir, m); err != nil {
		return nil, fmt.Errorf("load run %s: %w", dir, err)
	}
	name := filepath.Base(filepath.Clean(dir))
	if m.Config.Model.Path != "" && m.Config.Runtime != "replay" {
		name = filepath.Base(ModelKey(m.Config.Model.Path))
	}
	b, err := readRunBench(dir)
	if err != nil {
		return nil, fmt.Errorf("load run %s: %w", dir, err)
	}
	r := &Run{Dir: dir, Name: name, Manifest: m, Summary: s, Bench: b, records: map[string][]results.Record{}}
	if err := r.verify(); err != nil {
		return nil, fmt.Errorf("load run %s: %w", dir, err)
	}
	for _, ts := range s.Tasks {
		// Summaries written before free-form tasks stopped testing a
		// baseline of 0 (no chance level to test) still hold one.
		if ts.Chance != nil && ts.Chance.Baseline == 0 {
			ts.Chance = nil
		}
	}
	return r, nil
}

// Records returns the task's sample records that the run selects (read
// and checked once; records a resume with a smaller --limit left behind
// are not among them).
func (r *Run) Records(task string) ([]results.Record, error) {
	if recs, ok := r.records[task]; ok {
		return recs, nil
	}
	all, _, err := results.ReadTaskSamples(r.Dir, task)
	if err != nil {
		return nil, err
	}
	var recs []results.Record
	for i := range all {
		if r.Manifest.Config.Selects(task, &all[i]) {
			recs = append(recs, all[i])
		}
	}
	r.records[task] = recs
	return recs, nil
}

// TaskConfig returns the manifest's config of task.
func (r *Run) TaskConfig(task string) (results.TaskConfig, bool) {
	for _, t := range r.Manifest.Config.Tasks {
		if t.Name == task {
			return t, true
		}
	}
	return results.TaskConfig{}, false
}

// Tasks returns the run's task names in run order.
func (r *Run) Tasks() []string { return r.Summary.Order }

// PerSample returns metric values keyed by (id, repeat) for scored records.
func (r *Run) PerSample(task, metric string) (map[results.Key]float64, error) {
	recs, err := r.Records(task)
	if err != nil {
		return nil, err
	}
	out := map[results.Key]float64{}
	for _, rec := range recs {
		if rec.Error != "" {
			continue
		}
		if v, ok := rec.Scores[metric]; ok {
			out[rec.Key()] = v
		}
	}
	return out, nil
}

// ModelKey normalises a model path: an MNN package's config.json stands for
// its directory.
func ModelKey(p string) string {
	p = filepath.Clean(p)
	if filepath.Base(p) == "config.json" {
		p = filepath.Dir(p)
	}
	return p
}
