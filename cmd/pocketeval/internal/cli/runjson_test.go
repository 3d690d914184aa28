package cli

import (
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// run --json shows rates ×100 and perplexities and bits per byte as they
// are, like the table and summary.json.
func TestRunJSONScalesOnlyRates(t *testing.T) {
	s := &results.Summary{Complete: true, Order: []string{"wikitext"}, Tasks: map[string]*results.TaskSummary{
		"wikitext": {PrimaryMetric: "word_perplexity", Samples: 4, Scored: 4, Metrics: map[string]stats.Summary{
			"word_perplexity": {Mean: 812.5, N: 4},
			"bits_per_byte":   {Mean: 7.5357, Lo: 7.1, Hi: 8.2, Stderr: 0.3, N: 4},
			"acc":             {Mean: 0.25, N: 4},
		}},
	}}
	doc := newRunJSON("out", s)
	got := map[string]metricJSON{}
	for _, m := range doc.Tasks[0].Metrics {
		got[m.Name] = m
	}
	if v := got["bits_per_byte"]; v.Value != 7.5357 || v.CILo == nil || *v.CILo != 7.1 || *v.CIHi != 8.2 || v.Stderr != 0.3 {
		t.Errorf("bits_per_byte = %+v, want 7.5357 [7.1, 8.2] ± 0.3 unscaled", v)
	}
	if v := got["acc"].Value; v != 25 {
		t.Errorf("acc = %v, want 25 (points)", v)
	}
	if sc := doc.Tasks[0].Score; sc == nil || *sc != 812.5 {
		t.Errorf("score = %v, want the word perplexity 812.5", sc)
	}
	if got := interval("bits_per_byte", s.Tasks["wikitext"].Metrics["bits_per_byte"]); got != "[7.1000, 8.2000]" {
		t.Errorf("table interval = %q", got)
	}
}
