package runner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"unsafe"

	"github.com/pocketeval/pocketeval/evals"
)

// A run's checks need every task's dataset before anything runs, but
// the execute phase works through the tasks in order: a task that starts
// later may have its dataset let go once the work is planned (release) and
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

// releaseWaiting lets go of the datasets of the tasks after the first
// that cost memory at the run's high point. The largest dataset is held
// alone while its task runs in any case; a waiting dataset is kept when
// holding it with the datasets of every task before it, and those kept
// after them, stays within that: a small dataset behind the first task
// (GSM8K's, MATH-500's) then costs no second load, and MMLU's, CMMLU's
// and the rest still do not wait through the tasks before them. A
// dataset without file digests is kept: a second load could not be
// shown to read the same data.
func releaseWaiting(preps preparedTasks, s settings) {
	size := make([]int, len(preps))
	largest := 0
	for i, p := range preps {
		size[i] = datasetBytes(p.data)
		largest = max(largest, size[i])
	}
	// held[i] is what task i's phase holds: its own dataset and the
	// waiting ones kept so far.
	held := slices.Clone(size)
	for j := 1; j < len(preps); j++ {
		p := preps[j]
		d := p.data
		if len(d.Files) == 0 || p.released != nil {
			continue
		}
		if slices.Max(held[:j])+size[j] <= largest {
			for i := range j {
				held[i] += size[j]
			}
			continue
		}
		p.released = &released{s: s, files: d.Files, samples: len(d.Samples)}
		p.data = &evals.Dataset{Files: d.Files, Warnings: d.Warnings}
	}
}

// datasetBytes estimates the memory of d's samples: their structs and
// their text (a task's Extra, few-shot exemplars and the like, is not
// counted).
func datasetBytes(d *evals.Dataset) int {
	n := len(d.Samples) * int(unsafe.Sizeof(evals.Sample{}))
	for i := range d.Samples {
		s := &d.Samples[i]
		n += len(s.ID) + len(s.Input) + len(s.Target) + len(s.Group) + 16*len(s.Choices)
		for _, c := range s.Choices {
			n += len(c)
		}
	}
	return n
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
