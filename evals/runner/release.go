package runner

import (
	"context"
	"fmt"
	"maps"

	"github.com/pocketeval/pocketeval/evals"
)

// A run's checks need every task's dataset before anything runs, but
// the execute phase works through the tasks in order: a task that starts
// later has its dataset let go once the work is planned (release) and
// loaded again when its first work item is handed out (restore), so that
// a suite does not hold the datasets of the tasks still waiting while the
// first ones run (MMLU's 9.5 MB waits through five tasks, CMMLU's through
// seven).

// released is what restore needs to load a task's dataset again and to
// check that it is the one the run checked.
type released struct {
	s       settings
	files   map[string]string // the dataset's file digests
	samples int
}

// releaseWaiting lets go of the datasets of every task after the first.
// A dataset without file digests is kept: a second load could not be
// shown to read the same data.
func releaseWaiting(preps preparedTasks, s settings) {
	for _, p := range preps[min(1, len(preps)):] {
		d := p.data
		if len(d.Files) == 0 || p.released != nil {
			continue
		}
		p.released = &released{s: s, files: d.Files, samples: len(d.Samples)}
		p.data = &evals.Dataset{Files: d.Files, Warnings: d.Warnings}
	}
}

// restore loads the dataset release let go, refusing one whose files or
// number of samples differ from those the run checked (a file changed
// during the run). Only the goroutine that hands out work calls it.
func (p *prepared) restore(ctx context.Context) error {
	r := p.released
	if r == nil {
		return nil
	}
	d, err := p.task.Load(ctx, evals.LoadConfig{
		DataDir: r.s.dataDir, DatasetFile: r.s.datasetFile, NumFewshot: r.s.numFewshot, Seed: r.s.seed,
		SkipBadRecords: r.s.skipBad,
	})
	if err != nil {
		return fmt.Errorf("load task %s again: %w", p.info.Name, err)
	}
	if !maps.Equal(d.Files, r.files) || len(d.Samples) != r.samples {
		return fmt.Errorf("task %s: its dataset changed during the run (files %v, %d samples; checked %v, %d samples)", p.info.Name, d.Files, len(d.Samples), r.files, r.samples)
	}
	d.Warnings = p.data.Warnings
	p.data, p.released = d, nil
	return nil
}

// restoreAll loads every dataset still let go (a run that stopped before
// their tasks), for the summary.
func restoreAll(preps preparedTasks) error {
	for _, p := range preps {
		if err := p.restore(context.Background()); err != nil {
			return err
		}
	}
	return nil
}
