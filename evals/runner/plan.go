package runner

import (
	"errors"
	"fmt"

	"github.com/pocketeval/pocketeval/results"
)

// workPlan is what Run's plan phase found: per task its samples file and
// writer, the work left, and how much was already done.
type workPlan struct {
	tasks []*taskFile
	work  []workItem
	// total counts every work item of the selection; done those finished
	// by an earlier run.
	total, done int
}

// taskFile is one task's samples file, open for appending.
type taskFile struct {
	p    *prepared
	path string
	w    *results.SampleWriter
}

// workItem is one generation: a selected sample and a repeat.
type workItem struct {
	p      *prepared
	file   *taskFile
	idx    int // dataset index
	repeat int
}

// plan is Run's plan phase: for each task it reads the records an earlier
// run left (warning about a torn last line), opens the samples file for
// appending, and lists the work items without a finished record. A record
// that is not one of the task's samples — another task's, an id the
// dataset lacks, an index that is not its sample's — is refused with its
// file and line before anything is generated: resume never carries a
// stray record into a result.
func plan(o Options, preps preparedTasks) (*workPlan, error) {
	pl := &workPlan{}
	for _, p := range preps {
		tf := &taskFile{p: p, path: results.SamplesPath(o.OutDir, p.info.Name)}
		recs, rep, err := results.ReadTaskSamples(o.OutDir, p.info.Name)
		if err == nil {
			err = checkKnown(tf.path, p, recs)
		}
		if err != nil {
			pl.close()
			var se *results.SampleError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("resume %s: %w (remove the line, or start over with --force)", o.OutDir, err)
			}
			return nil, fmt.Errorf("resume %s: %w", o.OutDir, err)
		}
		if rep.TornBytes > 0 {
			o.Warn("%s: ignored an incomplete last line (%d bytes) left by an interrupted run", tf.path, rep.TornBytes)
		}
		if tf.w, err = results.OpenSampleWriter(tf.path, rep.GoodBytes); err != nil {
			pl.close()
			return nil, err
		}
		pl.tasks = append(pl.tasks, tf)
		finished := map[results.Key]bool{}
		for _, r := range recs {
			if r.Error == "" {
				finished[r.Key()] = true
			}
		}
		for _, wi := range p.items(o.SamplesPerTask) {
			pl.total++
			if finished[results.Key{ID: p.data.Samples[wi.idx].ID, Repeat: wi.repeat}] {
				pl.done++
				continue
			}
			wi.file = tf
			pl.work = append(pl.work, wi)
		}
	}
	return pl, nil
}

// close closes every samples file still open.
func (pl *workPlan) close() {
	for _, tf := range pl.tasks {
		if tf.w != nil {
			tf.w.Close()
			tf.w = nil
		}
	}
}

// checkKnown refuses a record whose sample is not in the task's dataset at
// the index it claims.
func checkKnown(path string, p *prepared, recs []results.Record) error {
	index := make(map[string]int, len(p.data.Samples))
	for i, s := range p.data.Samples {
		index[s.ID] = i
	}
	for _, r := range recs {
		i, ok := index[r.ID]
		switch {
		case !ok:
			return &results.SampleError{Path: path, Line: r.Line, Field: "id", Err: fmt.Errorf("sample %q is not in the dataset of %s", r.ID, p.info.Name)}
		case r.Index != i:
			return &results.SampleError{Path: path, Line: r.Line, Field: "index", Err: fmt.Errorf("sample %s is at index %d of the dataset, not %d", r.ID, i, r.Index)}
		}
	}
	return nil
}
