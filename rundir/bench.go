package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pocketeval/pocketeval/bench"
)

// BenchReport is a bench --json (or energy --json) report and the file it
// came from.
type BenchReport struct {
	Path   string
	Report *bench.Report
}

// ReadBenchReport reads a bench --json file.
func ReadBenchReport(path string) (BenchReport, error) {
	r, err := bench.ReadJSON(path)
	if err != nil {
		return BenchReport{}, err
	}
	return BenchReport{Path: path, Report: r}, nil
}

// PickBenchRow returns the row of the reports that a budget reads: the row named
// test, else the only row for which has is true.
func PickBenchRow(reports []BenchReport, test string, has func(bench.Row) bool) (bench.Row, BenchReport, string) {
	type found struct {
		row bench.Row
		rep BenchReport
	}
	var all []found
	var names []string
	for _, r := range reports {
		for _, row := range r.Report.Rows {
			if has(row) && (test == "" || row.Name == test) {
				all = append(all, found{row, r})
				names = append(names, row.Name)
			}
		}
	}
	switch {
	case len(all) == 1:
		return all[0].row, all[0].rep, ""
	case len(all) > 1 && test == "":
		return bench.Row{}, BenchReport{}, fmt.Sprintf("several bench tests measure it (%s): name one with budgets.bench_test", strings.Join(names, ", "))
	case len(all) > 1:
		return bench.Row{}, BenchReport{}, fmt.Sprintf("several bench reports have test %s", test)
	case test != "":
		return bench.Row{}, BenchReport{}, fmt.Sprintf("no bench report has test %s with this measurement", test)
	}
	return bench.Row{}, BenchReport{}, ""
}

// runBenchFile is the bench report a result directory may hold: save
// `pocketeval bench --json` there to attach speed, memory and energy
// measurements to the run (gate budgets and leaderboards read it).
const runBenchFile = "bench.json"

// readRunBench reads dir's bench.json if there is one.
func readRunBench(dir string) (*BenchReport, error) {
	path := filepath.Join(dir, runBenchFile)
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	r, err := ReadBenchReport(path)
	if err != nil {
		return nil, err
	}
	return &r, nil
}
