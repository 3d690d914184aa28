package leaderboard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/scorers/selective"
	"github.com/pocketeval/pocketeval/stats"
)

// decisionRun writes a run with a four-choice task at chance (6 of 24
// right), one above it (20 of 24), and a decision report on the second.
func decisionRun(t testing.TB) string {
	t.Helper()
	dir := writeRun(t, t.TempDir(), "r", fakeSpec{model: "/m/x.gguf", tasks: []fakeTask{
		{name: "guess", n: 24, correct: 6}, {name: "intent", n: 24, correct: 20},
	}})
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	quarter := make([]float64, 24)
	for i := range quarter {
		quarter[i] = 0.25
	}
	sum.Tasks["guess"].Chance = &results.Chance{Metric: "acc", Chance: stats.AboveChance(quarter, 6)}
	sum.Tasks["intent"].Chance = &results.Chance{Metric: "acc", Chance: stats.AboveChance(quarter, 20)}
	conf := []float64{0.99, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4}
	ok := []bool{true, true, true, true, false, true, false, false}
	op := selective.Choose(conf, ok, conf, ok, 0.2, 200, 1)
	sum.Tasks["intent"].Decision = &selective.Report{Scoring: "option/tokens", TestItems: 8, CalibrationItems: 8,
		Curve: selective.Curve(conf, ok), Operating: op, Temperature: 1.5,
		ByCandidates: []selective.Slice{{Candidates: 8, N: 8, Accuracy: 0.625, Chance: 0.125}}}
	sum.Tasks["intent"].Timing = &results.Timing{LatencyMsMedian: 12.5, SamplesWithTiming: 24}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBoardGreysScoresAtChance(t *testing.T) {
	t.Parallel()
	b, err := NewBoard(loadAll(t, []string{decisionRun(t)}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g, i := b.Rows[0].Cells["guess"], b.Rows[0].Cells["intent"]; !g.AtChance() || i.AtChance() {
		t.Fatalf("at chance: guess %v, intent %v", g.AtChance(), i.AtChance())
	}
	page, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	if !strings.Contains(h, `data-label="guess"`) || strings.Count(h, ` chance" data-label=`) != 1 ||
		!strings.Contains(h, "random answers score 25.00 on acc") {
		t.Error("the at-chance cell is not greyed with its baseline in the title")
	}
	if md := b.Markdown(); !strings.Contains(md, "(at chance: 25.00)") || strings.Count(md, "at chance") != 1 {
		t.Errorf("markdown:\n%s", md)
	}
	js, err := json.Marshal(b.Report())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"above_chance":false`) || !strings.Contains(string(js), `"above_chance":true`) {
		t.Errorf("json lacks above_chance:\n%s", js)
	}
}

func TestBoardDrawsDecisionCurve(t *testing.T) {
	t.Parallel()
	b, err := NewBoard(loadAll(t, []string{decisionRun(t)}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	h := string(page)
	for _, want := range []string{`<svg class="rc"`, `<polyline class="curve" points="`, `<circle class="op"`,
		"coverage at ≤ 20.0% errors", "latency per decision", "12.5 ms (median)", "<td>8</td><td>8</td><td>62.5</td>"} {
		if !strings.Contains(h, want) {
			t.Errorf("the decision drill-down lacks %q", want)
		}
	}
	if strings.Count(h, `<svg class="rc"`) != 1 {
		t.Error("a task without a decision report got a curve")
	}
}
