package runner

import (
	"context"
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// countingRuntime counts a prompt's tokens as its characters, caches
// nothing but the first character after the first item, and refuses
// prompts longer than 2 characters as too long.
type countingRuntime struct {
	fakeRuntime
	items int
}

func (r *countingRuntime) CountPrompts(_ context.Context, items []runtime.PromptItem) ([]runtime.PromptCount, error) {
	out := make([]runtime.PromptCount, len(items))
	for i, it := range items {
		p := it.Generate.Messages[0].Content
		switch {
		case len(p) > 2:
			out[i].TooLong = true
		case r.items > 0:
			out[i] = runtime.PromptCount{Tokens: len(p), Cached: 1}
		default:
			out[i] = runtime.PromptCount{Tokens: len(p)}
		}
		r.items++
	}
	return out, nil
}

// TestEstimate: samples, token counts and new-token bounds per task, the
// same selection as Run, and nothing written.
func TestEstimate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/never"
	o := baseOptions(dir, &countingRuntime{})
	o.Tasks = []evals.Task{fakeTask{"alpha", 12}}
	o.Limit = 11
	o.Gen.MaxTokens = 5
	ests, err := Estimate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// Prompts "q0".."q9" are 2 characters, "q10" is too long.
	want := TaskEstimate{Task: "alpha", Samples: 11, PromptTokens: 20, CachedTokens: 9, Counted: true, MaxNewTokens: 50, TooLong: 1}
	if len(ests) != 1 || ests[0] != want {
		t.Errorf("Estimate = %+v, want %+v", ests, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Estimate touched the result directory: %v", err)
	}
	// A runtime that cannot count: samples and bounds only.
	o.Runtime = &fakeRuntime{}
	ests, err = Estimate(context.Background(), o)
	if err != nil || ests[0].Counted || ests[0].PromptTokens != 0 || ests[0].MaxNewTokens != 55 {
		t.Errorf("without a counter: %+v, %v", ests, err)
	}
}
