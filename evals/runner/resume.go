package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/pocketeval/pocketeval/results"
)

// checkResume checks what a resume would reuse before anything is written
// (openDir marks the run running and removes its summary; a refused
// command must change nothing): each task's records must be samples of its
// dataset at their index (checkKnown), a run that ended must have the
// samples files it left (their digests), and every reused response must
// score what is stored (re-scored: *MismatchError). Nothing is checked
// with Force, nor without a run of the same configuration (openDir starts
// over or refuses it).
func checkResume(ctx context.Context, o Options, preps preparedTasks) error {
	if o.Force {
		return nil
	}
	man, err := results.ReadManifest(o.OutDir)
	if err != nil || man.Config.Fingerprint() != o.config(preps).Fingerprint() {
		return nil
	}
	recs := make([][]results.Record, len(preps))
	for i, p := range preps {
		path := results.SamplesPath(o.OutDir, p.info.Name)
		var err error
		recs[i], _, err = results.ReadTaskSamples(o.OutDir, p.info.Name)
		if err == nil {
			err = checkKnown(path, p, recs[i])
		}
		if err != nil {
			var se *results.SampleError
			if errors.As(err, &se) {
				return &ResumeError{Dir: o.OutDir, Err: fmt.Errorf("%w (remove the line)", err)}
			}
			return fmt.Errorf("resume %s: %w", o.OutDir, err)
		}
	}
	if man.Status != results.StatusRunning {
		if err := results.CheckDigests(o.OutDir, man); err != nil {
			return &ResumeError{Dir: o.OutDir, Err: err}
		}
	}
	s := o.settings()
	var all []Mismatch
	for i, p := range preps {
		ms, err := rescore(ctx, p, s, o.StripThinking, results.SamplesPath(o.OutDir, p.info.Name), recs[i], 0, nil)
		if err != nil {
			return fmt.Errorf("resume %s: re-score: %w", o.OutDir, err)
		}
		all = append(all, ms...)
	}
	if len(all) > 0 {
		return &MismatchError{Op: "resume " + o.OutDir, Mismatches: all}
	}
	return nil
}
