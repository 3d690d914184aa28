package fidelity

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// writeRun writes a minimal finished run: task t with samples scoring
// scores (by id s0, s1, ...) and responses.
func writeRun(t *testing.T, scores []float64, responses []string) string {
	t.Helper()
	dir := t.TempDir()
	if err := results.WriteJSONAtomic(filepath.Join(dir, results.ManifestFile), &results.Manifest{}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "samples"), 0o755)
	w, err := results.OpenSampleWriter(results.SamplesPath(dir, "t"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range scores {
		rec := &results.Record{Task: "t", ID: "s" + string(rune('0'+i)), Index: i, Response: responses[i], Scores: map[string]float64{"acc": s}}
		if err := w.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	sum := &results.Summary{Complete: true, Order: []string{"t"}, Tasks: map[string]*results.TaskSummary{
		"t": {PrimaryMetric: "acc", Scored: len(scores), Samples: len(scores), Metrics: map[string]stats.Summary{"acc": stats.Summarize(scores)}},
	}}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFlips(t *testing.T) {
	ref := writeRun(t, []float64{1, 1, 0, 1}, []string{"The answer is 4.", "x", "y", "Héllo wörld"})
	cand := writeRun(t, []float64{1, 0, 1, 0}, []string{"The answer is 4.", "x", "z", "Héllo wèrld"})
	a, err := LoadRun(ref)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadRun(cand)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Flips(a, b, FlipsOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d tasks", len(got))
	}
	f := got[0]
	if f.RightToWrong != 2 || f.WrongToRight != 1 || len(f.Flipped) != 3 || f.Paired.Test != "mcnemar-exact" || f.Paired.N != 4 {
		t.Fatalf("%+v", f)
	}
	if f.RelativeScore != 0.5/0.75 {
		t.Errorf("relative score %v", f.RelativeScore)
	}
	if f.Flipped[0].ID != "s1" || f.Flipped[0].Part != nil {
		t.Errorf("same response: %+v", f.Flipped[0])
	}
	if p := f.Flipped[2].Part; p == nil || p.Byte != 8 || p.Ref != "örld" || p.Cand != "èrld" || p.Token != -1 {
		t.Errorf("parting %+v", p)
	}
	if _, err := Flips(a, b, FlipsOptions{Tasks: []string{"nope"}}); err == nil {
		t.Error("unknown task: no error")
	}
}
