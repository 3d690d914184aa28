package runner

import (
	"context"
	goruntime "runtime"

	"golang.org/x/sync/errgroup"

	"github.com/pocketeval/pocketeval/results"
)

// finalize is Run's finalize phase: every task is summarised from its
// records (kept in memory when this run wrote the whole file, else read
// back from disk); a run that was neither interrupted nor
// failed has its samples files rewritten in dataset order; summary.json
// and the manifest's end, resources and status are written.
func finalize(ctx context.Context, o Options, man *results.Manifest, pl *workPlan, ex execution, env *environment) (*Result, error) {
	pl.close()
	interrupted := ctx.Err() != nil
	finished := !interrupted && ex.fatal == nil
	sum := &results.Summary{Tasks: map[string]*results.TaskSummary{}, Complete: finished}
	// Tasks are summarised in parallel (one per core): reading back a
	// large samples file is most of what finishing a fast run costs.
	summaries := make([]*results.TaskSummary, len(pl.tasks))
	missing := make([]int, len(pl.tasks))
	// fromMemory marks the tasks summarised without reading their file
	// back, which is then as its writer left it.
	fromMemory := make([]bool, len(pl.tasks))
	var g errgroup.Group
	g.SetLimit(goruntime.GOMAXPROCS(0))
	for i, tf := range pl.tasks {
		g.Go(func() error {
			// A file this run wrote alone, in order, is summarised from
			// the records kept in memory (TestSummaryFromMemory checks that
			// they give the summary the file gives).
			if e := tf.early; e != nil && ex.fatal == nil && !tf.isUnordered() {
				summaries[i], missing[i] = e.ts, e.missing
				fromMemory[i] = true
				return nil
			}
			if ex.fatal == nil {
				if ts, miss, ok := tf.summarizeMemory(finished); ok {
					summaries[i], missing[i], fromMemory[i] = ts, miss, true
					return nil
				}
			}
			// Only the fields a summary uses are decoded; the lines are
			// put in dataset order as they are.
			recs, err := results.ReadTaskForSummary(o.OutDir, tf.p.info.Name, finished)
			if err != nil {
				return err
			}
			summaries[i], missing[i] = summarizeTask(tf.p, o.SamplesPerTask, recs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, tf := range pl.tasks {
		sum.Tasks[tf.p.info.Name] = summaries[i]
		sum.Order = append(sum.Order, tf.p.info.Name)
		if missing[i] > 0 {
			sum.Complete = false
		}
	}
	if len(o.Groups) > 0 {
		sum.Groups, sum.GroupOrder = SummarizeGroups(o.Groups, sum.Tasks)
	}
	if err := results.WriteSummary(o.OutDir, sum); err != nil {
		return nil, err
	}
	// The digests let a reader notice an edit without the data (verify
	// re-scores with it). A file this run wrote alone and did not
	// rewrite has the digest its writer computed; others are read.
	known := map[string]string{}
	for i, tf := range pl.tasks {
		if fromMemory[i] && tf.fresh && tf.digestOK {
			known[tf.p.info.Name] = tf.digest
		}
	}
	digests, err := results.DigestsKnown(o.OutDir, sum.Order, known)
	if err != nil {
		return nil, err
	}
	man.SamplesSHA256 = digests
	end := o.Now().UTC()
	man.End = &end
	if r := resources(o); r != nil {
		man.Resources = r
	}
	man.Environment = env.snapshot()
	switch {
	case ex.fatal != nil:
		man.Status = results.StatusFailed
	case interrupted:
		man.Status = results.StatusInterrupted
	default:
		man.Status = results.StatusComplete
	}
	if n := len(man.Segments); n > 0 {
		seg := &man.Segments[n-1]
		seg.End, seg.Status = &end, man.Status
		seg.Generated, seg.Errors = ex.generated, ex.errors
	}
	if err := results.WriteManifest(o.OutDir, man); err != nil {
		return nil, err
	}
	res := &Result{Summary: sum, Manifest: man, Generated: ex.generated, Errors: ex.errors}
	switch {
	case ex.fatal != nil:
		return res, ex.fatal
	case interrupted:
		return res, ctx.Err()
	}
	return res, nil
}

// summarizeTask is a prepared task's summary over recs (Summarize plus the
// dataset's warnings), and how many work items have no finished record.
func summarizeTask(p *prepared, repeats int, recs []results.Record) (*results.TaskSummary, int) {
	ts, missing := Summarize(p.task, p.data, p.selected, repeats, recs)
	ts.Warnings = append(ts.Warnings, p.data.Warnings...)
	return ts, missing
}

// resources are the process's memory figures for the manifest, when the
// baseline before loading the model is known.
func resources(o Options) *results.Resources {
	if o.BaselineRSS <= 0 {
		return nil
	}
	peak := PeakRSS()
	if peak <= 0 {
		return nil
	}
	return &results.Resources{
		InProcess:      o.InProcess,
		BaselineRSSMB:  mb(o.BaselineRSS),
		PeakRSSMB:      mb(peak),
		PeakIncreaseMB: mb(peak - o.BaselineRSS),
	}
}
