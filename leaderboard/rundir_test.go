package leaderboard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/stats"
	"github.com/pocketeval/pocketeval/suite"
)

// TestNoScoredSamplesNeverZero: a task whose samples all failed has no
// score — not 0.00 — even when its summary claims a metric; a task with
// some failed samples is marked partial. Issue 21.
func TestNoScoredSamplesNeverZero(t *testing.T) {
	t.Parallel()
	dir := rundirtest.FakeRun(t, "m", map[string][]float64{"gsm8k": rundirtest.Pattern(40, 20), "ifeval": rundirtest.Pattern(10, 5)}, 0, 0)
	rundirtest.EditSamples(t, dir, "ifeval", func(lines []string) []string {
		for i := range lines {
			lines[i] = fmt.Sprintf(`{"task":"ifeval","id":"%d","index":%d,"response":"","scores":{},"error":"runtime: boom"}`+"\n", i, i)
		}
		return lines
	})
	rundirtest.EditSamples(t, dir, "gsm8k", func(lines []string) []string {
		for i := 0; i < 20; i++ {
			lines[i] = fmt.Sprintf(`{"task":"gsm8k","id":"%d","index":%d,"response":"","scores":{},"error":"runtime: boom"}`+"\n", i, i)
		}
		return lines
	})
	vals := rundirtest.Pattern(40, 20)[20:]
	var ones int
	for _, v := range vals {
		ones += int(v)
	}
	rundirtest.EditSummary(t, dir, func(s *results.Summary) {
		s.Complete = false
		// The failed task as an old summary showed it: a metric of 0 over 0.
		s.Tasks["ifeval"].Scored, s.Tasks["ifeval"].Errors = 0, 10
		s.Tasks["ifeval"].Metrics["acc"] = stats.Summary{}
		s.Tasks["gsm8k"].Scored, s.Tasks["gsm8k"].Errors = 20, 20
		m := s.Tasks["gsm8k"].Metrics["acc"]
		m.Mean, m.N = float64(ones)/20, 20
		s.Tasks["gsm8k"].Metrics["acc"] = m
	})
	r := rundirtest.MustLoad(t, dir)
	rows, avg, err := rundir.SuiteAverage(r, []suite.Entry{{Task: "gsm8k"}, {Task: "ifeval"}}, rundir.AverageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rows[1].Score != nil || avg.Value != nil || len(avg.Missing) != 2 ||
		!strings.HasPrefix(avg.Missing[0], "gsm8k (incomplete: 20 of 40") || !strings.HasPrefix(avg.Missing[1], "ifeval (failed: all 10 samples failed") {
		t.Errorf("all-failed task: row %+v, average %+v; want no score", rows[1], avg)
	}
	if !rows[0].Partial() || rows[0].Scored != 20 || rows[0].Samples != 40 {
		t.Errorf("half-failed task: row %+v, want partial 20/40", rows[0])
	}
	b, err := NewBoard([]*rundir.Run{r}, BoardOptions{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if g, f := b.Rows[0].Cells["gsm8k"], b.Rows[0].Cells["ifeval"]; g.State != CellPartial || f.State != CellFailed || f.HasScore() {
		t.Errorf("board cells gsm8k %+v, ifeval %+v; want partial and failed without a score", g, f)
	}
	var rep strings.Builder
	(&rundir.SuiteReport{Suite: "s", Rows: rows}).Print(&rep)
	if !strings.Contains(rep.String(), "† partial: only some selected samples were scored (gsm8k 20 of 40)") {
		t.Errorf("suite table:\n%s\nwant the partial task marked", rep.String())
	}
}

func TestBoardShowsEnergy(t *testing.T) {
	t.Parallel()
	scores := map[string][]float64{"ifeval": rundirtest.Pattern(20, 10)}
	plain := rundirtest.MustLoad(t, rundirtest.FakeRun(t, "plain", scores, 100, 250))
	b, err := NewBoard([]*rundir.Run{plain}, BoardOptions{Title: "board"})
	if err != nil {
		t.Fatal(err)
	}
	if md := b.Markdown(); strings.Contains(md, "J/inference") {
		t.Errorf("energy column without any energy:\n%s", md)
	}
	dir := rundirtest.FakeRun(t, "measured", scores, 120, 230)
	f, err := os.Create(filepath.Join(dir, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteJSON(f, rundirtest.PocketBench(251, 800, 228, 173, 2.7, true)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err = NewBoard([]*rundir.Run{plain, rundirtest.MustLoad(t, dir)}, BoardOptions{Title: "board"})
	if err != nil {
		t.Fatal(err)
	}
	md := b.Markdown()
	if !strings.Contains(md, "| peak MB | J/inference |") || !strings.Contains(md, "| 230 | 2.70 ± ") || !strings.Contains(md, "| 250 | – |") {
		t.Errorf("markdown:\n%s", md)
	}
	page, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `title="incremental energy per inference`) || !strings.Contains(string(page), `data-v="2.7">2.70</td>`) || !strings.Contains(string(page), "Score vs energy") {
		t.Error("the HTML board has no energy column or plot")
	}
}
