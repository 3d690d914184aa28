package leaderboard

import (
	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/rundir"
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
func runEnergyOf(r *rundir.Run) *Energy {
	if r.Bench == nil {
		return nil
	}
	row, rep, _ := rundir.PickBenchRow([]rundir.BenchReport{*r.Bench}, "", func(row bench.Row) bool { return row.Energy != nil })
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
