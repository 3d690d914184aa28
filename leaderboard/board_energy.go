package leaderboard

import (
	"path/filepath"

	"github.com/pocketeval/pocketeval/bench"
)

// Energy is the incremental energy of one inference, from the bench
// report saved with a run (its bench.json).
type Energy struct {
	Joules, SD float64 // per inference, mean and sample sd over rounds
	// BatteryPctPer100 is the share of the battery 100 inferences use; nil
	// when the report has no battery capacity.
	BatteryPctPer100 *float64
	Test             string // the bench test, e.g. pp1024+tg128
	Source           string // battery, rapl
	Rounds           int
	File             string // the report
}

// runEnergyOf is the energy of the only test with an energy measurement in
// the run's bench.json; nil when there is none (or several: the board
// cannot tell which one the run's workload matches).
func runEnergyOf(r *Run) *Energy {
	if r.Bench == nil {
		return nil
	}
	row, rep, _ := pick([]BenchReport{*r.Bench}, "", func(row bench.Row) bool { return row.Energy != nil })
	e := row.Energy
	if e == nil {
		return nil
	}
	out := &Energy{Joules: e.JoulesPerInference.Mean, SD: e.JoulesPerInference.SD, Test: row.Name,
		Source: e.Source.Name, Rounds: len(e.Rounds), File: rep.Path}
	if e.BatteryPctPer100 != nil {
		v := e.BatteryPctPer100.Mean
		out.BatteryPctPer100 = &v
	}
	return out
}

// modelKey normalises a model path: an MNN package's config.json stands for
// its directory.
func modelKey(p string) string {
	p = filepath.Clean(p)
	if filepath.Base(p) == "config.json" {
		p = filepath.Dir(p)
	}
	return p
}
