// Package rundirtest writes small result directories for the tests of the
// packages that read runs (runs, compare, gate, leaderboard).
package rundirtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/energy"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/stats"
)

// FakeRun writes a result directory with one task per entry of scores:
// task → per-sample 0/1 values of metric "acc".
func FakeRun(t testing.TB, model string, scores map[string][]float64, tps float64, peakMB float64) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, results.SamplesDir), 0o755)
	m := &results.Manifest{Status: results.StatusComplete, Start: time.Unix(0, 0).UTC(),
		Config: results.Config{Runtime: "llamacpp", Model: results.Model{Path: "/models/" + model}}}
	if peakMB > 0 {
		m.Resources = &results.Resources{InProcess: true, PeakIncreaseMB: peakMB}
	}
	sum := &results.Summary{Complete: true, Tasks: map[string]*results.TaskSummary{}}
	for _, task := range sortedTaskNames(scores) {
		vals := scores[task]
		m.Config.Tasks = append(m.Config.Tasks, results.TaskConfig{Name: task, Version: "1", DatasetFiles: map[string]string{task + ".jsonl": "abc"}, Samples: len(vals)})
		var recs []results.Record
		for i, v := range vals {
			recs = append(recs, results.Record{Task: task, ID: fmt.Sprint(i), Index: i, Scores: map[string]float64{"acc": v}})
		}
		if err := results.RewriteSorted(results.SamplesPath(dir, task), recs); err != nil {
			t.Fatal(err)
		}
		st := stats.Summarize(vals)
		sum.Tasks[task] = &results.TaskSummary{Version: "1", PrimaryMetric: "acc", Primary: st.Mean,
			Metrics: map[string]stats.Summary{"acc": st}, Samples: len(vals), Scored: len(vals),
			Timing: &results.Timing{DecodeTPSMedian: tps}}
		sum.Order = append(sum.Order, task)
	}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sortedTaskNames(m map[string][]float64) []string {
	var out []string
	for _, k := range []string{"ifeval", "gsm8k", "humaneval"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// Pattern returns n 0/1 values with k ones, spread deterministically.
func Pattern(n, k int) []float64 {
	out := make([]float64, n)
	for i := 0; i < k; i++ {
		out[(i*7)%n] = 1
	}
	return out
}

func MustLoad(t testing.TB, dir string) *rundir.Run {
	t.Helper()
	r, err := rundir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// EditSummary rewrites a run's summary.json.
func EditSummary(t testing.TB, dir string, edit func(*results.Summary)) {
	t.Helper()
	s, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(s)
	if err := results.WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
}

// EditSamples rewrites a task's samples file line by line.
func EditSamples(t testing.TB, dir, task string, edit func(lines []string) []string) {
	t.Helper()
	path := results.SamplesPath(dir, task)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = edit(lines[:len(lines)-1])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WithHeadline gives task in dir a macro metric with value macro and makes
// it the task's headline, as C-Eval's aggregator does.
func WithHeadline(t testing.TB, dir, task string, macro float64) {
	t.Helper()
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := sum.Tasks[task]
	ts.Metrics["acc_macro"] = stats.Summary{Mean: macro, Stderr: 0.02, Lo: macro - 0.04, Hi: macro + 0.04, N: ts.Scored}
	ts.HeadlineMetric = "acc_macro"
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
}

// PocketBench is a bench report like `bench --profile pocket-energy
// --energy battery --json` gives: one pp1024+tg128 row, median center.
func PocketBench(decode, prefill float64, memMiB, pkgMiB int64, joules float64, withBattery bool) *bench.Report {
	e := &energy.Result{Source: energy.Description{Name: "battery"}, Inferences: 1,
		Rounds:             []energy.Round{{IncrementJoules: joules}, {IncrementJoules: joules}, {IncrementJoules: joules}},
		JoulesPerInference: energy.Stat{Mean: joules}}
	if withBattery {
		c, _ := energy.RatedCapacity(6000, 3.87)
		e.Battery = &c
		e.BatteryPctPer100 = &energy.Stat{Mean: c.PercentPer100(joules)}
	}
	return &bench.Report{Model: "/models/pocket", PackageBytes: pkgMiB << 20, Center: "median",
		Memory: bench.Memory{Test: "pp1024+tg128", IncrementBytes: memMiB << 20},
		Rows: []bench.Row{{Test: bench.Test{Name: "pp1024+tg128", NPrompt: 1024, NGen: 128},
			Prefill: bench.Summarize([]float64{prefill - 1, prefill, prefill + 5}),
			Decode:  bench.Summarize([]float64{decode - 1, decode, decode + 5}), Energy: e}}}
}
