package leaderboard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/suite"
)

// testdataBoard is the committed board of testdata/board: result
// directories small enough to keep in the repository (the CLI's golden
// JSON and docs/leaderboard.md read them) with every kind of row — two
// runtimes of one model, a limited run, a run with failed, partial and
// missing tasks that did not finish, a single-task replay — and a suite
// file with published numbers. BOARD_TESTDATA=write go test -run
// TestBoardTestdata rewrites it.
const testdataBoard = "testdata/board"

func testdataRuns(t testing.TB, parent string) []string {
	t.Helper()
	four := func(n int, tps float64, ifeval, gsm8k, humaneval, mmlu int) []fakeTask {
		return []fakeTask{
			{name: "ifeval", n: n, correct: ifeval * n / 100, tps: tps, groups: 3},
			{name: "gsm8k", n: n, correct: gsm8k * n / 100, tps: tps},
			{name: "humaneval", n: n, correct: humaneval * n / 100, tps: tps},
			{name: "mmlu", n: n, correct: mmlu * n / 100, tps: tps, groups: 4},
		}
	}
	return []string{
		writeRun(t, parent, "alpha-q41", fakeSpec{model: "/models/alpha-0.3b-Q4_1.gguf", version: "llama.cpp b6050", peakMB: 262, energyJ: 3.4,
			tasks: four(20, 182, 70, 50, 50, 40)}),
		writeRun(t, parent, "alpha-mnn", fakeSpec{model: "/models/alpha-0.3b-int4/config.json", runtime: "mnn", version: "3.6.1", peakMB: 228, energyJ: 2.7,
			tasks: four(20, 241, 75, 55, 50, 40)}),
		writeRun(t, parent, "beta-q8-limit10", fakeSpec{model: "/models/beta-0.6b-Q8_0.gguf", version: "llama.cpp b6050", limit: 10, peakMB: 611,
			tasks: four(10, 99, 60, 70, 50, 60)}),
		writeRun(t, parent, "delta-broken", fakeSpec{model: "/models/delta-0.27b-it-F16.gguf", version: "llama.cpp b6050", status: results.StatusInterrupted, peakMB: 520,
			tasks: []fakeTask{
				{name: "ifeval", n: 20, correct: 9, tps: 120},
				{name: "humaneval", n: 20, failed: 10, correct: 3, tps: 120, firstErr: "sandbox: worker exited (signal 9)"},
				{name: "gsm8k", n: 20, failed: 20},
			}}),
		writeRun(t, parent, "gpt4-replay", fakeSpec{model: "/data/input_response_data_gpt4.jsonl", runtime: "replay",
			tasks: []fakeTask{{name: "ifeval", n: 20, correct: 16}}}),
	}
}

// testdataSuite is the suite file of testdata/board.
const testdataSuite = `# The suite of leaderboard/testdata/board: four tasks, three with
# published numbers (made up for the tests, not any model's).
name: mini4
description: four tasks of pocket11, for the leaderboard's tests and docs
model: Alpha-0.3B (published)
reported_average: 52.5
reported_source: made-up numbers for the tests
tasks:
  - task: ifeval
    reported: 71.5
    note: prompt-level strict
  - task: gsm8k
    reported: 49
  - task: humaneval
    reported: 51.2
  - task: mmlu
`

// TestBoardTestdata: the committed runs load (samples and summaries
// agree) and are what testdataRuns writes; BOARD_TESTDATA=write rewrites
// them.
func TestBoardTestdata(t *testing.T) {
	t.Parallel()
	if os.Getenv("BOARD_TESTDATA") == "write" {
		if err := os.RemoveAll(testdataBoard); err != nil {
			t.Fatal(err)
		}
		testdataRuns(t, filepath.Join(testdataBoard, "runs"))
		if err := os.WriteFile(filepath.Join(testdataBoard, "suite.yaml"), []byte(testdataSuite), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := loadTestdataBoard(t)
	if len(b.Rows) != 6 {
		t.Errorf("%d rows, want 5 runs and the reference row", len(b.Rows))
	}
}

// loadTestdataBoard is the board of the committed runs with their suite.
func loadTestdataBoard(t testing.TB) *Board {
	t.Helper()
	s, err := suite.Get(filepath.Join(testdataBoard, "suite.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := filepath.Glob(filepath.Join(testdataBoard, "runs", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no runs in %s (BOARD_TESTDATA=write writes them): %v", testdataBoard, err)
	}
	b, err := NewBoard(loadAll(t, dirs), BoardOptions{Title: "mini4", Suite: s, Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBoardJSONAgreesWithMarkdown: the JSON report and the Markdown of the
// same board show the same rows in the same order, with the same rank,
// identity, average, cells, measurements, problems and Pareto fronts.
func TestBoardJSONAgreesWithMarkdown(t *testing.T) {
	t.Parallel()
	for name, b := range map[string]*Board{"testdata": loadTestdataBoard(t), "realistic": realisticBoard(t), "many tasks": manyTaskBoard(t)} {
		// Through JSON, as a reader of `leaderboard --json` gets it.
		raw, err := json.Marshal(b.Report())
		if err != nil {
			t.Fatal(err)
		}
		var rep BoardReport
		if err := json.Unmarshal(raw, &rep); err != nil {
			t.Fatal(err)
		}
		if err := jsonAgreesWithMarkdown(rep, b.Markdown()); err != nil {
			t.Errorf("%s: %v\n%s", name, err, b.Markdown())
		}
	}
}

// jsonAgreesWithMarkdown compares a report with a Markdown board, cell by
// cell, formatting the report's numbers as the Markdown does.
func jsonAgreesWithMarkdown(rep BoardReport, md string) error {
	lines := strings.Split(md, "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| # | run |") })
	if head < 0 {
		return fmt.Errorf("no table")
	}
	header := mdCells(lines[head])
	var tasks []string
	for _, c := range rep.Tasks {
		tasks = append(tasks, c.Task)
	}
	if got := strings.Join(header[7:7+len(tasks)], ","); got != strings.Join(tasks, ",") {
		return fmt.Errorf("columns: markdown %s, json %s", got, strings.Join(tasks, ","))
	}
	hasEnergy := slices.Contains(header, "J/inference")
	costs := costColumns{ms: slices.Contains(header, "ms/correct"), joules: slices.Contains(header, "J/correct"), latency: slices.Contains(header, "TTFT p50 ms")}
	var rows [][]string
	for _, l := range lines[head+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		rows = append(rows, mdCells(l))
	}
	if len(rows) != len(rep.Rows) {
		return fmt.Errorf("%d rows in the markdown, %d in the json", len(rows), len(rep.Rows))
	}
	f2 := func(x *float64) string { return fmt.Sprintf("%.2f", *x) }
	for i, r := range rep.Rows {
		want := []string{"", r.Label}
		if r.Rank != nil {
			want[0] = fmt.Sprint(*r.Rank)
		}
		switch r.State {
		case "reported":
			want[1] = "*" + r.Label + "* (reported, not measured)"
		case "failed", "partial":
			want[1] += " **" + r.State + "**"
		}
		if r.VerdictMode != nil {
			want[1] += " · " + *r.VerdictMode + " verdicts"
		}
		rt := ""
		if r.Runtime != nil {
			rt = *r.Runtime
		}
		want = append(want, rt, str(r.Quant), "", "", "n/a")
		if r.Samples != nil {
			want[4] = fmt.Sprint(*r.Samples)
			if *r.Limit > 0 {
				want[4] += fmt.Sprintf(" (limit %d)", *r.Limit)
			}
		}
		if r.Date != nil {
			want[5] = (*r.Date)[:10]
		}
		if r.Average != nil {
			want[6] = f2(r.Average)
			if q := r.QuantOf; q != nil && q.RelativeScore != nil {
				want[6] += fmt.Sprintf(" (%.1f%% of %s)", *q.RelativeScore, q.Quant)
			}
			if r.Reference && len(rep.AssumedMembers) > 0 {
				want[6] += fmt.Sprintf(" (%d of %d members assumed)", len(rep.AssumedMembers), len(rep.Tasks))
			}
		} else if len(r.Missing) == 0 {
			return fmt.Errorf("%s: no average and no reason", r.Label)
		}
		for _, c := range r.Tasks {
			var cell string
			ci := "(no CI)"
			if c.CILo != nil {
				ci = fmt.Sprintf("[%.1f, %.1f]", *c.CILo, *c.CIHi)
			}
			switch c.Status {
			case "complete":
				cell = f2(c.Score) + " " + ci
			case "incomplete":
				cell = fmt.Sprintf("%s %s ⚠ %d/%d", f2(c.Score), ci, *c.Scored, *c.Samples)
			case "reported":
				cell = "*" + f2(c.Score) + "*"
			case "failed":
				if c.Score != nil {
					return fmt.Errorf("%s: failed %s has a score", r.Label, c.Task)
				}
				cell = fmt.Sprintf("failed (0/%d)", *c.Samples)
			case "missing":
				if c.Score != nil {
					return fmt.Errorf("%s: missing %s has a score", r.Label, c.Task)
				}
				cell = "–"
			default:
				return fmt.Errorf("%s: %s has status %q", r.Label, c.Task, c.Status)
			}
			want = append(want, cell)
		}
		want = append(want, optNumJSON(r.DecodeTPS, speed), optNumJSON(r.PeakMB, func(x float64) string { return fmt.Sprintf("%.0f", x) }))
		if hasEnergy {
			e := "–"
			if r.Energy != nil {
				e = fmt.Sprintf("%.2f ± %.2f", r.Energy.Joules, r.Energy.SD)
			}
			want = append(want, e)
		}
		var cost *Cost
		if c := r.Cost; c != nil {
			cost = &Cost{MSPerCorrect: c.MSPerCorrect, JPerCorrect: c.JPerCorrect, Latency: c.Latency}
		}
		if cc := costs.cells(cost); cc != "" {
			want = append(want, mdCells("|"+cc)...)
		}
		got := rows[i]
		if len(got) != len(want) {
			return fmt.Errorf("row %d: %d cells in the markdown, %d from the json", i+1, len(got), len(want))
		}
		for j := range want {
			if j == 2 && r.Runtime != nil && r.RuntimeVersion != nil && *r.RuntimeVersion != "" {
				// The table shows the engine's version ("llama.cpp b6050", "mnn 3.6.1").
				if v := *r.RuntimeVersion; !strings.HasSuffix(got[j], v[strings.LastIndexAny(v, " @")+1:]) {
					return fmt.Errorf("row %d: runtime %q, json %s %s", i+1, got[j], *r.Runtime, v)
				}
				continue
			}
			if got[j] != want[j] {
				return fmt.Errorf("row %d (%s), column %q: markdown %q, json %q", i+1, r.Label, header[j], got[j], want[j])
			}
		}
		for _, p := range r.Problems {
			if !strings.Contains(md, "\n- "+p+"\n") {
				return fmt.Errorf("%s: problem %q not in the markdown", r.Label, p)
			}
		}
	}
	// Fronts: the Markdown lists those more than one run is plotted on.
	name := map[string]string{}
	for _, m := range measures {
		name[m.key] = m.name
	}
	frontLine := regexp.MustCompile(`(?m)^Pareto front, average vs ([a-z ]+): (.*)$`)
	mdFronts := map[string]string{}
	for _, m := range frontLine.FindAllStringSubmatch(md, -1) {
		mdFronts[m[1]] = m[2]
	}
	for _, f := range rep.Fronts {
		n := name[f.Measure]
		got, listed := mdFronts[n]
		delete(mdFronts, n)
		if f.Plotted < 2 {
			if listed {
				return fmt.Errorf("front vs %s: %d run plotted, but listed: %s", n, f.Plotted, got)
			}
			continue
		}
		var items []string
		for _, p := range f.Runs {
			dec := measures[slices.IndexFunc(measures, func(m measure) bool { return m.key == f.Measure })].dec
			items = append(items, fmt.Sprintf("%s (%.2f at %.*f %s)", p.Label, p.Average, dec, p.Value, f.Unit))
		}
		if want := strings.Join(items, "; "); got != want {
			return fmt.Errorf("front vs %s: markdown %q, json %q", n, got, want)
		}
		for _, p := range f.Runs {
			i := slices.IndexFunc(rep.Rows, func(r RowReport) bool { return r.Label == p.Label })
			if i < 0 || !slices.Contains(rep.Rows[i].OnFront, f.Measure) {
				return fmt.Errorf("front vs %s: %s is not marked on_front", n, p.Label)
			}
		}
	}
	if len(mdFronts) > 0 {
		return fmt.Errorf("fronts only in the markdown: %v", mdFronts)
	}
	return nil
}

// mdCells splits a Markdown table row into its trimmed cells.
func mdCells(line string) []string {
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func optNumJSON(x *float64, format func(float64) string) string {
	if x == nil {
		return "–"
	}
	return format(*x)
}

// TestBoardFrontsMatchPlots: the fronts of the report are the ones the
// page's plots draw — of the suite average, and of each task — and the
// report marks each run on them.
func TestBoardFrontsMatchPlots(t *testing.T) {
	t.Parallel()
	for name, b := range map[string]*Board{"testdata": loadTestdataBoard(t), "realistic": realisticBoard(t)} {
		p := b.page()
		rep := b.Report()
		if len(p.Figures) != 1+len(b.Tasks) || p.Figures[0].Key != "avg" {
			t.Fatalf("%s: %d figures, first %q; want the suite average's and one per task", name, len(p.Figures), p.Figures[0].Key)
		}
		for k, fig := range p.Figures {
			fronts, task := b.Fronts(), ""
			if k > 0 {
				task = b.Tasks[k-1]
				fronts = b.TaskFronts(task)
			}
			if len(fig.Plots) != len(fronts) {
				t.Fatalf("%s, %s: %d plots, %d fronts", name, fig.Label, len(fig.Plots), len(fronts))
			}
			for i, f := range fronts {
				var plotted, reported []string
				for _, pt := range fig.Plots[i].Front {
					plotted = append(plotted, pt.Label)
				}
				for _, r := range f.Runs {
					reported = append(reported, r.Label)
				}
				pl := fig.Plots[i]
				if !slices.Equal(plotted, reported) || pl.Unit != f.Unit || pl.Points != f.Plotted || pl.Skipped != f.Skipped {
					t.Errorf("%s, %s, %s: plot front %v (%d plotted, %d skipped), report %v (%d, %d)", name, fig.Label, f.Measure,
						plotted, pl.Points, pl.Skipped, reported, f.Plotted, f.Skipped)
				}
				// The report marks exactly these runs.
				var marked []string
				for _, r := range rep.Rows {
					on := r.OnFront
					if task != "" {
						on = r.Tasks[k-1].OnFront
					}
					if slices.Contains(on, f.Measure) {
						marked = append(marked, r.Label)
					}
				}
				slices.Sort(marked)
				slices.Sort(reported)
				if !slices.Equal(marked, reported) {
					t.Errorf("%s, %s, %s: on_front marks %v, front %v", name, fig.Label, f.Measure, marked, reported)
				}
			}
		}
	}
}

// TestBoardReport: no number that was not measured — failed and missing
// tasks have null scores, a row without an average says why, the
// reference row has no identity or measurements and is on no front.
func TestBoardReport(t *testing.T) {
	t.Parallel()
	rep := loadTestdataBoard(t).Report()
	if rep.Suite == nil || *rep.Suite != "mini4" || len(rep.Tasks) != 4 || rep.Tasks[0].Capability != "instruction following" || rep.Tasks[0].Note != "prompt-level strict" {
		t.Errorf("suite %v, tasks %+v", rep.Suite, rep.Tasks)
	}
	rows := map[string]RowReport{}
	for _, r := range rep.Rows {
		rows[r.Name] = r
	}
	ref := rows["Alpha-0.3B (published)"]
	if !ref.Reference || ref.State != "reported" || ref.Rank != nil || ref.Dir != nil || ref.Samples != nil || ref.Date != nil ||
		ref.Average == nil || *ref.Average != 52.5 || len(ref.OnFront) != 0 || str(ref.Source) != "made-up numbers for the tests" {
		t.Errorf("reference row %+v", ref)
	}
	if c := ref.Tasks[3]; c.Task != "mmlu" || c.Status != "missing" || c.Score != nil {
		t.Errorf("reference mmlu %+v", c)
	}
	broken := rows["delta-0.27b-it-F16.gguf"]
	if broken.State != "failed" || broken.Average != nil || broken.Rank != nil || len(broken.Missing) != 3 || str(broken.Status) != results.StatusInterrupted {
		t.Errorf("broken row %+v", broken)
	}
	cells := map[string]CellReport{}
	for _, c := range broken.Tasks {
		cells[c.Task] = c
	}
	if c := cells["gsm8k"]; c.Status != "failed" || c.Score != nil || c.CILo != nil || c.N != nil || *c.Samples != 20 || *c.Errors != 20 {
		t.Errorf("failed gsm8k %+v", c)
	}
	if c := cells["mmlu"]; c.Status != "missing" || c.Score != nil || c.Samples != nil {
		t.Errorf("missing mmlu %+v", c)
	}
	if c := cells["humaneval"]; c.Status != "incomplete" || c.Score == nil || *c.Scored != 10 || str(c.FirstError) != "sandbox: worker exited (signal 9)" ||
		c.Reported == nil || c.Delta == nil || *c.Delta != *c.Score-*c.Reported {
		t.Errorf("partial humaneval %+v", c)
	}
	limited := rows["beta-0.6b-Q8_0.gguf"]
	if *limited.Limit != 10 || *limited.Samples != 40 || str(limited.Quant) != "Q8_0" || limited.Energy != nil || limited.DecodeTPS == nil {
		t.Errorf("limited row %+v", limited)
	}
	if replay := rows["gpt4-replay"]; replay.Quant != nil || replay.PeakMB != nil || replay.DecodeTPS != nil {
		t.Errorf("replay row %+v", replay)
	}
	mnn := rows["alpha-0.3b-int4"]
	if mnn.Energy == nil || mnn.Energy.Joules != 2.7 || !slices.Equal(mnn.OnFront, []string{"decode_tps", "peak_mb", "energy_j"}) {
		t.Errorf("mnn row %+v", mnn)
	}
}
