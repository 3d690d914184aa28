package leaderboard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/stats"
)

// TestBoardCost: milliseconds and joules per correct answer, and the
// latency on real prompts from the run's bench.json.
func TestBoardCost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tasks := []fakeTask{{name: "gsm8k", n: 20, correct: 5}, {name: "ifeval", n: 10, correct: 10}}
	a := writeRun(t, dir, "a", fakeSpec{model: "/m/pocket/config.json", runtime: "mnn", peakMB: 228, tasks: tasks, energyJ: 2.7})
	plain := writeRun(t, dir, "b", fakeSpec{model: "/m/other-Q8_0.gguf", tasks: tasks})
	// Every gsm8k response of run a took 100 ms, ifeval's 40 ms.
	for task, ms := range map[string]time.Duration{"gsm8k": 100, "ifeval": 40} {
		recs, _, err := results.ReadTaskSamples(a, task)
		if err != nil {
			t.Fatal(err)
		}
		for i := range recs {
			recs[i].Timings = &runtime.Timings{Total: ms * time.Millisecond}
		}
		if err := results.RewriteSorted(results.SamplesPath(a, task), recs); err != nil {
			t.Fatal(err)
		}
	}
	// Its bench.json also times gsm8k's prompts.
	rep, err := bench.ReadJSON(filepath.Join(a, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	q := func(v float64) stats.Quantile {
		return stats.Quantile{Value: v, Lo: v - 1, Hi: v + 1, N: 8, Level: 0.95}
	}
	rep.Rows = append(rep.Rows, bench.Row{Test: bench.Test{Name: "prompts:gsm8k"}, Latency: &bench.Latency{Task: "gsm8k", Prompts: 8, Requests: 8,
		TTFT: &bench.LatencyStats{P50: q(120)}, E2E: &bench.LatencyStats{P90: q(900)}}})
	f, err := os.Create(filepath.Join(a, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteJSON(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()

	b, err := NewBoard(loadAll(t, []string{a, plain}), BoardOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var c *Cost
	for _, r := range b.Rows {
		if r.Runtime == "mnn" {
			c = r.Cost
		} else if r.Cost != nil {
			t.Errorf("cost %+v on a run with no timings and no bench.json", r.Cost)
		}
	}
	// 15 correct of 30; 20×100 + 10×40 ms; 2.7 J × 30 / 15.
	if c == nil || c.Correct != 15 || c.Samples != 30 || c.TimedSamples != 30 || c.MSPerCorrect == nil || *c.MSPerCorrect != 160 ||
		c.JPerCorrect == nil || *c.JPerCorrect != 5.4 || c.Latency == nil || c.Latency.Task != "gsm8k" {
		t.Fatalf("cost %+v", c)
	}
	md := b.Markdown()
	for _, want := range []string{"| ms/correct | J/correct | TTFT p50 ms | e2e p90 ms |", "| 160 | 5.40 | 120.0 [119.0, 121.0] | 900.0 [899.0, 901.0] |", "| – | – | – | – |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if r := b.Report(); r.Rows[0].Cost == nil && r.Rows[1].Cost == nil {
		t.Error("the json report has no cost")
	}
}
