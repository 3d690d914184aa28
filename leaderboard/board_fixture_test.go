package leaderboard

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/stats"
)

// fakeTask is one task of a written result directory: n samples selected,
// failed of them errored, correct of the rest scored 1.
type fakeTask struct {
	name                string
	n, correct, failed  int
	tps                 float64
	groups              int // breakdown groups (subjects), 0 for none
	firstErr            string
	notScoredButPresent bool // in the summary, but no sample scored or failed (an interrupted run)
}

// fakeSpec is a result directory to write.
type fakeSpec struct {
	model   string // model path as recorded in the manifest
	runtime string
	version string
	limit   int
	status  string
	peakMB  float64
	start   time.Time
	tasks   []fakeTask
	// energyJ, when set, saves a bench report with this energy per
	// inference as the run's bench.json.
	energyJ float64
}

// writeRun writes a consistent result directory (samples, summary,
// manifest) under parent/name and returns its path.
func writeRun(t testing.TB, parent, name string, s fakeSpec) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(filepath.Join(dir, results.SamplesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if s.runtime == "" {
		s.runtime = "llamacpp"
	}
	if s.status == "" {
		s.status = results.StatusComplete
	}
	if s.start.IsZero() {
		s.start = time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	}
	end := s.start.Add(37 * time.Minute)
	m := &results.Manifest{Status: s.status, Start: s.start, End: &end,
		Command: []string{"pocketeval", "run", "--runtime", s.runtime, "--model", s.model, "--out", dir},
		Config: results.Config{Runtime: s.runtime, Limit: s.limit, Seed: 1234, NumFewshot: -1, Chat: true,
			Model: results.Model{Path: s.model, Files: map[string]string{filepath.Base(s.model): "9f2c4e0d81aa77c3b5e1"}}},
		Host: results.Host{CPU: "Test CPU", Cores: 8, OS: "linux", Arch: "arm64", LoadAvg: 0.4}}
	m.Runtime.Name, m.Runtime.Version = s.runtime, s.version
	if s.peakMB > 0 {
		m.Resources = &results.Resources{InProcess: true, PeakIncreaseMB: s.peakMB}
	}
	sum := &results.Summary{Complete: s.status == results.StatusComplete, Tasks: map[string]*results.TaskSummary{}}
	for _, ft := range s.tasks {
		m.Config.Tasks = append(m.Config.Tasks, results.TaskConfig{Name: ft.name, Version: "1",
			DatasetFiles: map[string]string{ft.name + ".jsonl": "abc"}, Samples: ft.n})
		var recs []results.Record
		var vals []float64
		groups := map[string][]float64{}
		ts := &results.TaskSummary{Version: "1", PrimaryMetric: "acc", Samples: ft.n, Metrics: map[string]stats.Summary{}}
		for i := 0; i < ft.n && !ft.notScoredButPresent; i++ {
			rec := results.Record{Task: ft.name, ID: fmt.Sprintf("%04d", i), Index: i, Scores: map[string]float64{}}
			if i < ft.failed {
				rec.Error = ft.firstErr
				if rec.Error == "" {
					rec.Error = "prompt longer than the context (612 > 512 tokens)"
				}
				if ts.FirstError == "" {
					ts.FirstError = rec.Error
				}
				ts.Errors++
				recs = append(recs, rec)
				continue
			}
			v := 0.0
			if (i-ft.failed)*ft.correct/maxInt(1, ft.n-ft.failed) != (i-ft.failed+1)*ft.correct/maxInt(1, ft.n-ft.failed) {
				v = 1
			}
			rec.Scores["acc"] = v
			vals = append(vals, v)
			if ft.groups > 0 {
				g := fmt.Sprintf("subject_%02d", i%ft.groups)
				groups[g] = append(groups[g], v)
			}
			recs = append(recs, rec)
		}
		if err := results.RewriteSorted(results.SamplesPath(dir, ft.name), recs); err != nil {
			t.Fatal(err)
		}
		ts.Scored = len(vals)
		if len(vals) > 0 {
			st := stats.Summarize(vals)
			ts.Metrics["acc"], ts.Primary = st, st.Mean
		}
		if len(groups) > 0 {
			ts.Breakdown = map[string]map[string]float64{}
			for g, vs := range groups {
				ts.Breakdown[g] = map[string]float64{"acc": stats.Mean(vs), "n": float64(len(vs))}
			}
		}
		if ft.tps > 0 {
			ts.Timing = &results.Timing{DecodeTPSMedian: ft.tps, SamplesWithTiming: len(vals)}
		}
		sum.Tasks[ft.name] = ts
		sum.Order = append(sum.Order, ft.name)
	}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	if s.energyJ > 0 {
		f, err := os.Create(filepath.Join(dir, "bench.json"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rep := rundirtest.PocketBench(250, 800, int64(s.peakMB), 173, s.energyJ, true)
		rep.Model = s.model
		if err := bench.WriteJSON(f, rep); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// pocket11Tasks is a full pocket11 run's tasks with accuracies acc[i] (%)
// and decode speed tps; n samples each.
func pocket11Tasks(n int, tps float64, acc ...float64) []fakeTask {
	names := []string{"ifeval", "ifeval_zh", "mgsm_zh", "humaneval", "mbpp", "gsm8k", "math500", "mmlu", "ceval", "cmmlu", "bbh"}
	groups := map[string]int{"mmlu": 8, "ceval": 6, "cmmlu": 6, "bbh": 5, "ifeval": 4}
	var out []fakeTask
	for i, name := range names {
		out = append(out, fakeTask{name: name, n: n, correct: int(acc[i] * float64(n) / 100), tps: tps, groups: groups[name]})
	}
	return out
}

// realisticRuns writes the runs of a realistic pocket11 board: several
// models, two runs of the same model, a limited run, a run with failed and
// partial tasks, a single-task replay, near-equal runs whose labels crowd
// the plots, and three runs with energy measured (bench.json).
func realisticRuns(t testing.TB, parent string) []string {
	t.Helper()
	return []string{
		writeRun(t, parent, "alpha-q41", fakeSpec{model: "/models/alpha-0.3b-Q4_1.gguf", version: "llama.cpp b6050", peakMB: 262, energyJ: 3.4,
			tasks: pocket11Tasks(200, 182, 71, 70, 48, 51, 44, 52, 30, 41, 45, 47, 33)}),
		writeRun(t, parent, "alpha-mnn", fakeSpec{model: "/models/alpha-0.3b-int4/config.json", runtime: "mnn", version: "3.6.1", peakMB: 228, energyJ: 2.7,
			tasks: pocket11Tasks(200, 241, 72, 71, 50, 52, 45, 53, 31, 42, 46, 48, 34)}),
		writeRun(t, parent, "beta-q8", fakeSpec{model: "/models/beta-0.6b-Q8_0.gguf", version: "llama.cpp b6050", peakMB: 640, energyJ: 6.1,
			tasks: pocket11Tasks(200, 96, 55, 50, 45, 40, 42, 60, 38, 50, 49, 51, 40)}),
		writeRun(t, parent, "beta-q8-limit50", fakeSpec{model: "/models/beta-0.6b-Q8_0.gguf", version: "llama.cpp b6050", limit: 50, peakMB: 611,
			tasks: pocket11Tasks(50, 99, 56, 48, 44, 42, 40, 58, 36, 52, 50, 50, 42)}),
		writeRun(t, parent, "gamma-q8", fakeSpec{model: "/models/gamma-0.36b-instruct-Q8_0.gguf", version: "llama.cpp b6050", peakMB: 415,
			tasks: pocket11Tasks(200, 180, 41, 30, 20, 25, 28, 30, 12, 35, 30, 31, 29)}),
		writeRun(t, parent, "gamma-q4km", fakeSpec{model: "/models/gamma-0.36b-instruct-Q4_K_M.gguf", version: "llama.cpp b6050", peakMB: 300,
			tasks: pocket11Tasks(200, 184, 40, 29, 19, 25, 27, 29, 12, 34, 30, 30, 28)}),
		writeRun(t, parent, "delta-broken", fakeSpec{model: "/models/delta-0.27b-it-F16.gguf", version: "llama.cpp b6050", status: results.StatusInterrupted, peakMB: 520,
			tasks: []fakeTask{
				{name: "ifeval", n: 200, correct: 90, tps: 120},
				{name: "humaneval", n: 40, failed: 20, correct: 5, tps: 120, firstErr: "sandbox: worker exited (signal 9)"},
				{name: "ceval", n: 60, failed: 60, tps: 0},
				{name: "gsm8k", n: 200, correct: 30, tps: 121},
			}}),
		writeRun(t, parent, "gpt4-replay", fakeSpec{model: "/data/input_response_data_gpt4.jsonl", runtime: "replay",
			tasks: []fakeTask{{name: "ifeval", n: 541, correct: 417, groups: 9}}}),
	}
}
