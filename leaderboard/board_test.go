package leaderboard

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/stats"
	"github.com/pocketeval/pocketeval/suite"
)

// pocketCaps mirrors the built-in families for the tests (the CLI passes
// registry.Families).
var pocketCaps = []Capability{
	{"instruction following", []string{"ifeval", "ifeval_zh"}},
	{"math", []string{"gsm8k", "mgsm_zh", "math500"}},
	{"code", []string{"humaneval", "mbpp"}},
	{"knowledge", []string{"mmlu", "ceval", "cmmlu", "bbh"}},
}

func loadAll(t testing.TB, dirs []string) []*rundir.Run {
	t.Helper()
	var out []*rundir.Run
	for _, d := range dirs {
		r, err := rundir.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// realisticBoard is the pocket11 board of realisticRuns.
func realisticBoard(t testing.TB) *Board {
	t.Helper()
	s, err := suite.Get("pocket11", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBoard(loadAll(t, realisticRuns(t, t.TempDir())), BoardOptions{Title: "pocket11 — test board", Suite: s, Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// manyTaskBoard is a board of 24 tasks: too many columns for a laptop.
func manyTaskBoard(t testing.TB) *Board {
	t.Helper()
	var many []fakeTask
	for i := 0; i < 24; i++ {
		many = append(many, fakeTask{name: fmt.Sprintf("task_%02d", i), n: 20, correct: i % 20, tps: 50})
	}
	dir := t.TempDir()
	b, err := NewBoard(loadAll(t, []string{
		writeRun(t, dir, "a", fakeSpec{model: "/m/a-Q8_0.gguf", peakMB: 300, tasks: many}),
		writeRun(t, dir, "b", fakeSpec{model: "/m/b-Q4_0.gguf", peakMB: 200, tasks: many}),
		writeRun(t, dir, "c", fakeSpec{model: "/m/c-Q4_0.gguf", peakMB: 250, tasks: many[:20]}),
	}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteBoards writes the test boards' pages, Markdown and JSON for a look
// (BOARD_OUT=DIR).
func TestWriteBoards(t *testing.T) {
	out := os.Getenv("BOARD_OUT")
	if out == "" {
		t.Skip("BOARD_OUT not set")
	}
	for name, b := range map[string]*Board{"realistic": realisticBoard(t), "many-tasks": manyTaskBoard(t)} {
		h, err := b.HTML()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name+".html"), h, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name+".md"), []byte(b.Markdown()), 0o644); err != nil {
			t.Fatal(err)
		}
		j, err := json.MarshalIndent(b.Report(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name+".json"), j, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestScoreAxisTicks(t *testing.T) {
	t.Parallel()
	check := func(ys []float64, want string) {
		t.Helper()
		a := scoreAxis(ys)
		var got []string
		for _, v := range a.Ticks {
			got = append(got, formatTick(v, a.Step))
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("scoreAxis(%v) ticks %q, want %q", ys, g, want)
		}
	}
	check([]float64{3, 97}, "0 25 50 75 100")
	check([]float64{41, 58}, "35 40 45 50 55 60")
	check([]float64{0, 0, 0.5}, "0.0 2.5 5.0 7.5 10.0")
	check([]float64{99.5}, "90.0 92.5 95.0 97.5 100.0")
	for _, c := range []struct {
		v, step float64
		want    string
	}{{0.25, 0.25, "0.25"}, {0.75, 0.25, "0.75"}, {2.5, 2.5, "2.5"}, {75, 25, "75"}, {300, 100, "300"}, {0.1 + 0.2, 0.1, "0.3"}} {
		if got := formatTick(c.v, c.step); got != c.want {
			t.Errorf("formatTick(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
	if a := measureAxis([]float64{241, 96}); a.Log || a.Min != 0 || a.Max < 241 || a.Max > 320 {
		t.Errorf("measure axis %+v", a)
	}
	// Speeds from 120 to 12,600 tok/s: logarithmic, 1-2-5 ticks.
	a := measureAxis([]float64{121.5, 715, 12634})
	var got []string
	for _, v := range a.Ticks {
		got = append(got, a.label(v))
	}
	if !a.Log || a.Min != 100 || a.Max != 20000 || strings.Join(got, " ") != "100 200 500 1k 2k 5k 10k 20k" {
		t.Errorf("log axis %+v, ticks %q", a, got)
	}
	if p := a.pos(1000); math.Abs(p-math.Log10(10)/math.Log10(200)) > 1e-9 {
		t.Errorf("pos(1000) = %v", p)
	}
	// Over more than three decades, ticks at powers of ten only.
	if a := measureAxis([]float64{3, 45000}); strings.Join(fmtTicks(a), " ") != "1 10 100 1k 10k 100k" {
		t.Errorf("wide log axis ticks %q", fmtTicks(a))
	}
}

func fmtTicks(a axis) []string {
	var out []string
	for _, v := range a.Ticks {
		out = append(out, a.label(v))
	}
	return out
}

func TestPareto(t *testing.T) {
	t.Parallel()
	pts := []plotPoint{
		{X: 100, Y: 50, Label: "a"}, // fast and good
		{X: 50, Y: 60, Label: "b"},  // slower, better
		{X: 40, Y: 40, Label: "c"},  // dominated by a and b
		{X: 100, Y: 45, Label: "d"}, // as fast as a, worse: dominated
		{X: 150, Y: 20, Label: "e"}, // fastest
	}
	names := func(idx []int) string {
		var s []string
		for _, i := range idx {
			s = append(s, pts[i].Label)
		}
		return strings.Join(s, ",")
	}
	if got := names(pareto(pts, true)); got != "b,a,e" {
		t.Errorf("front, higher x better = %s, want b,a,e", got)
	}
	// Lower is better (memory): c uses least, b scores most.
	if got := names(pareto(pts, false)); got != "c,b" {
		t.Errorf("front, lower x better = %s, want c,b", got)
	}
	// Two identical points are both on the front.
	same := []plotPoint{{X: 1, Y: 1}, {X: 1, Y: 1}}
	if got := pareto(same, true); len(got) != 2 {
		t.Errorf("identical points: front %v", got)
	}
}

func TestPlaceLabelsNeverOverlap(t *testing.T) {
	t.Parallel()
	area := box{60, 16, 502, 314}
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 40; trial++ {
		n := 2 + rng.IntN(14)
		dots := make([][2]float64, n)
		labels := make([]string, n)
		order := make([]int, n)
		for i := range dots {
			// Crowds: most points in a small cluster, some coincident.
			dots[i] = [2]float64{200 + rng.Float64()*40, 150 + rng.Float64()*30}
			if i > 0 && rng.IntN(4) == 0 {
				dots[i] = dots[i-1]
			}
			labels[i] = fmt.Sprintf("model-%d-0.%db-Q4_K_M.gguf", i, rng.IntN(9))
			order[i] = i
		}
		line := box{150, 160, 300, 163}
		pl := placeLabels(dots, labels, order, area, []box{line})
		var boxes []box
		placedN := 0
		for i, p := range pl {
			if !p.ok {
				continue
			}
			placedN++
			if !p.b.inside(area) {
				t.Fatalf("trial %d: label %d outside the plot: %+v", trial, i, p.b)
			}
			if w := textWidth(labels[i], labelSize); p.b.x1-p.b.x0 < w {
				t.Fatalf("trial %d: box narrower than the text", trial)
			}
			for _, d := range dots {
				if p.b.overlaps(box{d[0] - plotDotR, d[1] - plotDotR, d[0] + plotDotR, d[1] + plotDotR}) {
					t.Fatalf("trial %d: label %d covers a dot", trial, i)
				}
			}
			if p.b.overlaps(line) {
				t.Fatalf("trial %d: label %d crosses the front", trial, i)
			}
			for j, q := range boxes {
				if p.b.overlaps(q) {
					t.Fatalf("trial %d: labels overlap (%d with an earlier one, %d)", trial, i, j)
				}
			}
			boxes = append(boxes, p.b)
		}
		if n <= 6 && placedN < n {
			t.Errorf("trial %d: only %d of %d labels placed", trial, placedN, n)
		}
	}
}

func TestQuantOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeGGUF := func(name string, kvs []gguf.KV, typ gguf.TensorType) string {
		t.Helper()
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := gguf.Tensor{Name: "blk.0.ffn.weight", Shape: []uint64{32, 2}, Type: typ}
		size, _ := w.Size()
		w.WriteData = func(out io.Writer) error { _, err := out.Write(make([]byte, size)); return err }
		n := gguf.Tensor{Name: "blk.0.norm.weight", Shape: []uint64{32}, Type: gguf.F32,
			WriteData: func(out io.Writer) error { _, err := out.Write(make([]byte, 128)); return err }}
		if err := gguf.Write(f, kvs, []gguf.Tensor{w, n}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	manifest := func(runtime, path string) *results.Manifest {
		return &results.Manifest{Config: results.Config{Runtime: runtime, Model: results.Model{Path: path}}}
	}
	for _, c := range []struct {
		name string
		m    *results.Manifest
		want Quant
	}{
		{"file type", manifest("llamacpp", writeGGUF("a.gguf", []gguf.KV{{Key: "general.file_type", Value: uint32(3)}}, gguf.Q8_0)), Quant{"Q4_1", "gguf general.file_type"}},
		// The header wins over a misleading name.
		{"header over name", manifest("llamacpp", writeGGUF("m-Q4_K_M.gguf", []gguf.KV{{Key: "general.file_type", Value: uint32(7)}}, gguf.Q8_0)), Quant{"Q8_0", "gguf general.file_type"}},
		{"tensor types", manifest("llamacpp", writeGGUF("b.gguf", nil, gguf.Q8_0)), Quant{"Q8_0", "gguf tensor types"}},
		{"name, file gone", manifest("llamacpp", "/gone/Qwen3-0.6B-Q4_K_M.gguf"), Quant{"Q4_K_M", "file name"}},
		{"mnn package dir", manifest("mnn", "/models/pocket-int4/config.json"), Quant{"int4", "file name"}},
		{"bf16 name", manifest("mnn", "/models/Pocket-BF16"), Quant{"BF16", "file name"}},
		{"no tag", manifest("llamacpp", "/gone/stories.gguf"), Quant{}},
		{"not in a word", manifest("llamacpp", "/gone/printf16x.gguf"), Quant{}},
		{"replay", manifest("replay", "/data/preds-Q4_0.jsonl"), Quant{}},
	} {
		if got := QuantOf(c.m); got != c.want {
			t.Errorf("%s: QuantOf = %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestQuantOfSharedModels reads the shared tiny GGUF models' headers.
func TestQuantOfSharedModels(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(sharedtest.Models(t), "gguf")
	for file, want := range map[string]string{"stories260K.gguf": "F32", "llama-2-tiny-random.gguf": "F16"} {
		m := &results.Manifest{Config: results.Config{Runtime: "llamacpp", Model: results.Model{Path: filepath.Join(dir, file)}}}
		if q := QuantOf(m); q.Name != want || !strings.HasPrefix(q.From, "gguf") {
			t.Errorf("%s: %+v, want %s from the header", file, q, want)
		}
	}
}

// TestBoardMarksFailedAndPartial: a task with no scored sample is
// "failed", never 0.00; a task with failed samples is marked partial; the
// run has no average and is listed after the ranked runs (issues 14, 21).
func TestBoardMarksFailedAndPartial(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeRun(t, dir, "good", fakeSpec{model: "/m/good-Q8_0.gguf", tasks: []fakeTask{
		{name: "ifeval", n: 40, correct: 10, tps: 50}, {name: "gsm8k", n: 40, correct: 4, tps: 50}}})
	bad := writeRun(t, dir, "bad", fakeSpec{model: "/m/bad-Q8_0.gguf", tasks: []fakeTask{
		{name: "ifeval", n: 40, correct: 15, failed: 20, firstErr: "request timed out", tps: 90},
		{name: "gsm8k", n: 40, failed: 40, firstErr: "prompt longer than the context"}}})
	b, err := NewBoard(loadAll(t, []string{bad, good}), BoardOptions{Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows[0].Name != "good-Q8_0.gguf" || b.Rows[0].Rank != 1 || b.Rows[1].Rank != 0 || b.Rows[1].Mean != nil {
		t.Fatalf("order: %s (rank %d), %s (rank %d)", b.Rows[0].Name, b.Rows[0].Rank, b.Rows[1].Name, b.Rows[1].Rank)
	}
	r := b.Rows[1]
	if c := r.Cells["gsm8k"]; c.State != CellFailed || c.HasScore() {
		t.Errorf("gsm8k cell %+v, want failed", c)
	}
	if c := r.Cells["ifeval"]; c.State != CellPartial || c.Scored != 20 || c.Samples != 40 {
		t.Errorf("ifeval cell %+v, want partial 20/40", c)
	}
	if !r.Failed() || len(r.Problems) != 2 || !strings.Contains(r.Problems[1], "prompt longer than the context") {
		t.Errorf("problems %q", r.Problems)
	}
	md := b.Markdown()
	for _, want := range []string{"bad-Q8_0.gguf **failed**", "failed (0/40)", "⚠ 20/40", "| n/a |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	h, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	row := rowHTML(t, h, 2)
	for _, want := range []string{`<span class="fail">failed</span>`, `0/40 scored`, `class="badge b-fail"`, "⚠", `<span class="na">n/a</span>`} {
		if !strings.Contains(row, want) {
			t.Errorf("failed run's row lacks %q:\n%s", want, row)
		}
	}
	if zero := regexp.MustCompile(`(^|[^0-9.])0\.00?($|[^0-9])`); zero.MatchString(row) {
		t.Errorf("failed run's row shows a zero score:\n%s", row)
	}
}

// TestBoardMissingTaskInRun: a task a run lists but never reached (no
// sample scored, none failed) is "missing", as suite and gate call it,
// not "failed"; the run has no average.
func TestBoardMissingTaskInRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := writeRun(t, dir, "cut", fakeSpec{model: "/m/cut-Q8_0.gguf", status: results.StatusInterrupted, tasks: []fakeTask{
		{name: "ifeval", n: 40, correct: 10, tps: 50}, {name: "gsm8k", n: 40, notScoredButPresent: true}}})
	runs := loadAll(t, []string{run})
	b, err := NewBoard(runs, BoardOptions{Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	r := b.Rows[0]
	if c := r.Cells["gsm8k"]; c.State != CellMissing || c.HasScore() || c.Samples != 40 {
		t.Errorf("gsm8k cell %+v, want missing with 40 samples selected", c)
	}
	if r.Mean != nil || r.Rank != 0 {
		t.Errorf("run ranked %d with average %v, want no average", r.Rank, r.Mean)
	}
	if got := runs[0].Summary.Tasks["gsm8k"].Status(); got != results.TaskMissing {
		t.Errorf("summary status of gsm8k = %q, want %q (the rule suite and gate use)", got, results.TaskMissing)
	}
	if len(r.Problems) < 2 || !strings.Contains(strings.Join(r.Problems, "\n"), "gsm8k: missing") {
		t.Errorf("problems %q, want gsm8k named missing", r.Problems)
	}
}

// rowHTML returns the n-th (1-based) row of the board's table.
func rowHTML(t *testing.T, page []byte, n int) string {
	t.Helper()
	s := string(page)
	s = s[strings.Index(s, "<tbody>"):strings.Index(s, "</tbody>")]
	rows := strings.Split(s, "<tr ")
	if n >= len(rows) {
		t.Fatalf("no row %d", n)
	}
	return rows[n]
}

// TestBoardIdentifiesRuns: two runs of one model file differ by label and
// show runtime, quantisation, N, --limit, date and directory.
func TestBoardIdentifiesRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tasks := []fakeTask{{name: "gsm8k", n: 20, correct: 5, tps: 40}}
	a := writeRun(t, dir, "full", fakeSpec{model: "/m/qwen-Q4_K_M.gguf", version: "llama.cpp b6050", tasks: tasks})
	b := writeRun(t, dir, "quick", fakeSpec{model: "/m/qwen-Q4_K_M.gguf", version: "llama.cpp b6050", limit: 20, tasks: tasks})
	board, err := NewBoard(loadAll(t, []string{a, b}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]bool{}
	for _, r := range board.Rows {
		labels[r.Label] = true
	}
	if !labels["qwen-Q4_K_M.gguf · full"] || !labels["qwen-Q4_K_M.gguf · quick"] {
		t.Errorf("labels %v", labels)
	}
	var quick *BoardRow
	for i := range board.Rows {
		if board.Rows[i].Limit == 20 {
			quick = &board.Rows[i]
		}
	}
	if got, want := quick.Identity(), "llama.cpp b6050 · Q4_K_M · N 20 · 2026-12-01"; got != want {
		t.Errorf("identity %q, want %q", got, want)
	}
	h, _ := board.HTML()
	for _, want := range []string{"full", "quick", "limit 20", `title="` + b + `"`} {
		if !strings.Contains(string(h), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestBoardReferenceRow: the suite's published numbers are a row marked
// reported, ranked by nothing and plotted nowhere.
func TestBoardReferenceRow(t *testing.T) {
	t.Parallel()
	s, err := suite.Get("pocket11", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := writeRun(t, t.TempDir(), "r", fakeSpec{model: "/m/pocket-Q4_1.gguf", peakMB: 300, tasks: pocket11Tasks(20, 100, 70, 70, 50, 50, 40, 50, 30, 40, 40, 40, 30)})
	b, err := NewBoard(loadAll(t, []string{run}), BoardOptions{Suite: s, Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	var ref *BoardRow
	for i := range b.Rows {
		if b.Rows[i].Reference {
			ref = &b.Rows[i]
		}
	}
	if ref == nil || ref.Name != "MNN-Pocket-0.3B" || ref.Rank != 0 || ref.Mean == nil || *ref.Mean != 50 {
		t.Fatalf("reference row %+v", ref)
	}
	if c := ref.Cells["humaneval"]; c.State != CellReported || c.Value != 53.66 {
		t.Errorf("humaneval %+v", c)
	}
	if c := ref.Cells["mmlu"]; c.State != CellMissing {
		t.Errorf("mmlu %+v, want missing (not published)", c)
	}
	// Columns follow the capabilities, the suite's order within each.
	if got := strings.Join(b.Tasks, ","); got != "ifeval,ifeval_zh,mgsm_zh,gsm8k,math500,humaneval,mbpp,mmlu,ceval,cmmlu,bbh" {
		t.Errorf("columns %s", got)
	}
	h, _ := b.HTML()
	if strings.Contains(string(h), "<title>MNN-Pocket-0.3B:") {
		t.Error("the reference row is plotted")
	}
	if !strings.Contains(string(h), `class="badge b-ref"`) || !strings.Contains(b.Markdown(), "*MNN-Pocket-0.3B* (reported, not measured)") {
		t.Error("the reference row is not marked as reported")
	}
}

// TestBoardGroupsOtherTasks: a task no capability lists is grouped as
// "other", after the known groups.
func TestBoardGroupsOtherTasks(t *testing.T) {
	t.Parallel()
	run := writeRun(t, t.TempDir(), "r", fakeSpec{model: "/m/x.gguf", tasks: []fakeTask{
		{name: "intent", n: 10, correct: 5}, {name: "mmlu", n: 10, correct: 5}, {name: "ifeval", n: 10, correct: 5}}})
	b, err := NewBoard(loadAll(t, []string{run}), BoardOptions{Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range b.Groups {
		got = append(got, g.Capability+":"+strings.Join(g.Tasks, "+"))
	}
	if s := strings.Join(got, " "); s != "instruction following:ifeval knowledge:mmlu other:intent" {
		t.Errorf("groups %s", s)
	}
}

// TestBoardEnergy: the energy in a run's bench.json reaches the row with
// its spread, rounds and battery share, and gets a plot with a Pareto
// front; a run without one has none.
func TestBoardEnergy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tasks := []fakeTask{{name: "gsm8k", n: 20, correct: 5, tps: 40}}
	a := writeRun(t, dir, "a", fakeSpec{model: "/m/pocket/config.json", runtime: "mnn", peakMB: 228, tasks: tasks})
	plain := writeRun(t, dir, "b", fakeSpec{model: "/m/other-Q8_0.gguf", peakMB: 400, tasks: tasks})
	f, err := os.Create(filepath.Join(a, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	rep := rundirtest.PocketBench(251, 800, 228, 173, 2.7, true)
	rep.Rows[0].Energy.JoulesPerInference.SD = 0.1
	if err := bench.WriteJSON(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := NewBoard(loadAll(t, []string{a, plain}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var e *Energy
	for _, r := range b.Rows {
		if r.Runtime == "mnn" {
			e = r.Energy
		} else if r.Energy != nil {
			t.Error("energy on a run without bench.json")
		}
	}
	if e == nil || e.Joules != 2.7 || e.SD != 0.1 || e.Rounds != 3 || e.Test != "pp1024+tg128" || e.BatteryPctPer100 == nil || e.Source != "battery" {
		t.Fatalf("energy %+v", e)
	}
	h, _ := b.HTML()
	for _, want := range []string{"Score vs energy", "2.70 ± 0.10 J per inference (pp1024+tg128, battery, 3 rounds; ", "% of the battery per 100"} {
		if !strings.Contains(html.UnescapeString(string(h)), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(b.Markdown(), "2.70 ± 0.10") {
		t.Error("markdown lacks the energy")
	}
}

// TestBoardPageSelfContained: the page refers to nothing outside itself.
func TestBoardPageSelfContained(t *testing.T) {
	t.Parallel()
	b, err := NewBoard(loadAll(t, realisticRuns(t, t.TempDir())), BoardOptions{Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(h), `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"http://", "https://", "src=", "@import", "url("} {
		if strings.Contains(s, bad) {
			t.Errorf("page refers to an external resource (%q)", bad)
		}
	}
	for _, want := range []string{`<table id="board"`, "<svg", `data-metric="avg"`, "Pareto front:", `id="run-1-ifeval"`, "subject_00"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Every drill-down link leads somewhere.
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(s, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(` href="#([^"]+)"`).FindAllStringSubmatch(s, -1)
	for _, m := range links {
		if !ids[m[1]] {
			t.Errorf("link to #%s, which is not on the page", m[1])
		}
	}
	if len(links) < 100 {
		t.Errorf("only %d links", len(links))
	}
}

// TestBoardAggregateWithoutInterval: a macro average over one group has no
// standard error; it is shown without an interval, never as [0.0, 0.0].
func TestBoardAggregateWithoutInterval(t *testing.T) {
	t.Parallel()
	dir := writeRun(t, t.TempDir(), "r", fakeSpec{model: "/m/x.gguf", tasks: []fakeTask{{name: "bbh", n: 20}}})
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum.Tasks["bbh"].Metrics["acc_macro"] = stats.Summary{N: 20}
	sum.Tasks["bbh"].HeadlineMetric = "acc_macro"
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	b, err := NewBoard(loadAll(t, []string{dir}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := b.Rows[0].Cells["bbh"]; c.Metric != "acc_macro" || c.HasCI() || c.CI(1) != "no CI" {
		t.Errorf("cell %+v", c)
	}
	h, _ := b.HTML()
	if strings.Contains(string(h), "0.0–0.0") || !strings.Contains(string(h), ">no CI<") {
		t.Error("the page shows a degenerate interval")
	}
	if md := b.Markdown(); !strings.Contains(md, "0.00 (no CI)") || strings.Contains(md, "[0.0, 0.0]") {
		t.Errorf("markdown:\n%s", md)
	}
}

func TestRuntimeLabel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ rt, v, want string }{
		{"llamacpp", "llama.cpp b6050", "llama.cpp b6050"},
		{"llamacpp", "llama.cpp ggml-org/llama.cpp@v0.4.0", "llama.cpp v0.4.0"},
		{"llamacpp", "llama.cpp commit 5b4ebc5, npm @node-llama-cpp/linux-x64@3.21.1", "llama.cpp 5b4ebc5 (npm 3.21.1)"},
		{"llamacpp", "llama.cpp b6050 (commit 5b4ebc5), npm @node-llama-cpp/linux-x64@3.21.1", "llama.cpp b6050 (5b4ebc5) (npm 3.21.1)"},
		{"mnn", "3.6.1", "mnn 3.6.1"},
		{"replay", "", "replay"},
	} {
		r := BoardRow{Runtime: c.rt, RuntimeVersion: c.v}
		if got := r.RuntimeLabel(); got != c.want {
			t.Errorf("RuntimeLabel(%q, %q) = %q, want %q", c.rt, c.v, got, c.want)
		}
	}
}

// TestBreakdownRatesAndCounts: values named by a task's metric are rates
// (×100), others counts.
func TestBreakdownRatesAndCounts(t *testing.T) {
	t.Parallel()
	ts := &results.TaskSummary{
		Metrics: map[string]stats.Summary{"prompt_level_strict_acc": {}, "acc_flexible": {}},
		Breakdown: map[string]map[string]float64{
			"category:STEM":    {"acc_flexible": 0.25, "subjects": 1, "n": 20},
			"change_case":      {"strict_acc": 0.68, "n": 25},
			"abstract_algebra": {"acc_flexible": 0.5, "n": 20},
		},
	}
	v := breakdown(ts)
	if got := strings.Join(v.Metrics, ","); got != "acc_flexible,strict_acc,subjects" {
		t.Fatalf("columns %s", got)
	}
	want := map[string]string{"abstract_algebra": "50.0 – – 20", "category:STEM": "25.0 – 1 20", "change_case": "– 68.0 – 25"}
	for _, r := range v.Rows {
		if got := strings.Join(append(r.Values, r.N), " "); got != want[r.Group] {
			t.Errorf("%s: %q, want %q", r.Group, got, want[r.Group])
		}
	}
}
