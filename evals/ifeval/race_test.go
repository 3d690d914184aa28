package ifeval

import (
	"context"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// TestScoreConcurrent scores the same samples from several goroutines, as
// the runner does, and requires the sequential verdicts (run with -race to
// check for data races).
func TestScoreConcurrent(t *testing.T) {
	ds := loadTask(t, EN, evals.LoadConfig{})
	responses := gpt4Responses(t)
	samples := ds.Samples[:120]
	want := make([]evals.Score, len(samples))
	for i, s := range samples {
		sc, err := EN.Score(context.Background(), s, evals.Output{Text: responses[s.Input]})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = sc
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, s := range samples {
				sc, err := EN.Score(context.Background(), s, evals.Output{Text: responses[s.Input]})
				if err != nil {
					t.Error(err)
					return
				}
				if sc.Values[MetricPromptStrict] != want[i].Values[MetricPromptStrict] || sc.Values[MetricPromptLoose] != want[i].Values[MetricPromptLoose] {
					t.Errorf("sample %s: concurrent verdict differs", s.ID)
				}
			}
		}()
	}
	wg.Wait()
}
