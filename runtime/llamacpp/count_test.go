//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// TestCountPromptsPredictsPrefill: what CountPrompts predicts for requests
// taken one after another is what running them computes, with the prefix
// cache and without.
func TestCountPromptsPredictsPrefill(t *testing.T) {
	pre := "Q: Where did Lily go? A: To the park.\nQ: What did Tom have? A: A red ball.\n"
	ctxText := pre + "Q: Who was hot? A:"
	items := []runtime.PromptItem{
		{Generate: &runtime.Request{Prompt: pre + "Q: Where is the dog? A:", Gen: runtime.GenConfig{MaxTokens: 3}}},
		{Generate: &runtime.Request{Prompt: pre + "Q: Who saw a bird? A:", Gen: runtime.GenConfig{MaxTokens: 3}}},
		{Loglik: []runtime.LoglikRequest{{Context: ctxText, Continuation: " The sun."}, {Context: ctxText, Continuation: " Tom."}, {Context: ctxText, Continuation: ""}}},
		{Generate: &runtime.Request{Prompt: "Once upon a time", Gen: runtime.GenConfig{MaxTokens: 3}}},
		{Generate: &runtime.Request{Prompt: pre + "Q: Where is the dog? A:", Gen: runtime.GenConfig{MaxTokens: 3}}},
	}
	for _, o := range []Options{{Workers: 2}, {Workers: 1, PrefixCache: "off"}, {Workers: 1, Batch: "off"}} {
		t.Run(fmt.Sprintf("batch=%s,prefix=%s,workers=%d", o.Batch, o.PrefixCache, o.Workers), func(t *testing.T) {
			rt := open(t, stories, o)
			ctx := context.Background()
			counts, err := rt.CountPrompts(ctx, items)
			if err != nil {
				t.Fatal(err)
			}
			var tokens, cached int
			for _, c := range counts {
				tokens, cached = tokens+c.Tokens, cached+c.Cached
			}
			if (o.PrefixCache != "off" && o.Batch != "off") != (cached > counts[2].Cached+counts[0].Cached) {
				t.Errorf("cached %d of %d (per item %+v): the preamble is shared only with the prefix cache", cached, tokens, counts)
			}
			for _, it := range items {
				if it.Generate != nil {
					if _, err := rt.Generate(ctx, *it.Generate); err != nil {
						t.Fatal(err)
					}
				} else if _, err := rt.LogLikelihood(ctx, it.Loglik); err != nil {
					t.Fatal(err)
				}
			}
			st := rt.PrefillStats()
			if st.Requested != int64(tokens) || st.Requested-st.Computed != int64(cached) {
				t.Errorf("predicted %d tokens, %d cached; running them requested %d and computed %d (%d cached)",
					tokens, cached, st.Requested, st.Computed, st.Requested-st.Computed)
			}
		})
	}
	rt := open(t, stories, Options{ContextSize: 64})
	long := runtime.PromptItem{Generate: &runtime.Request{Prompt: repeatWords("The dog ran. ", 100)}}
	counts, err := rt.CountPrompts(context.Background(), []runtime.PromptItem{long})
	if err != nil || !counts[0].TooLong {
		t.Errorf("a prompt longer than the context: %+v, %v; want TooLong", counts, err)
	}
}

func repeatWords(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
