//go:build !nollamacpp

package llamacpp

import (
	"context"
	"math"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// TestGridPrefixIsExact checks exact prefix reuse (batching off, grid.go):
// prompts sharing a long preamble, run one after another with the prefix
// cache on, give bit for bit the responses and log-probabilities of the
// same prompts computed from an empty cache, while computing fewer tokens.
func TestGridPrefixIsExact(t *testing.T) {
	preamble := "Lily went to the park. She saw a big dog. Tom had a red ball. He played with his mom. The sun was hot and the sky was blue.\n"
	tails := []string{"Once upon a time", "One day, Tom", "Lily was sad because", "The dog ran to", "Once upon a time"}
	on := open(t, stories, Options{Workers: 1, Batch: "off", PrefixCache: "on", BatchSize: 8})
	off := open(t, stories, Options{Workers: 1, Batch: "off", PrefixCache: "off", BatchSize: 8})
	ctx := context.Background()
	for i, tail := range tails {
		req := runtime.Request{Prompt: preamble + tail, Gen: runtime.GenConfig{MaxTokens: 24}}
		a, err := on.Generate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := off.Generate(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if a.Text != b.Text || a.CompletionTokens != b.CompletionTokens {
			t.Errorf("prompt %d: %q with the prefix cache, %q without", i, a.Text, b.Text)
		}
		reqs := []runtime.LoglikRequest{{Context: preamble + tail, Continuation: " dog."}, {Context: preamble + tail, Continuation: " ball."}}
		la, err := on.LogLikelihood(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := off.LogLikelihood(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for k := range la {
			if math.Float64bits(la[k].LogProb) != math.Float64bits(lb[k].LogProb) || la[k].IsGreedy != lb[k].IsGreedy {
				t.Errorf("prompt %d choice %d: %+v with the prefix cache, %+v without", i, k, la[k], lb[k])
			}
		}
	}
	st, ref := on.PrefillStats(), off.PrefillStats()
	if st.Requested != ref.Requested {
		t.Fatalf("requested %d tokens with the cache, %d without", st.Requested, ref.Requested)
	}
	if st.Computed*2 > ref.Computed {
		t.Errorf("prefix cache computed %d of %d prompt tokens, want under half (the preamble's whole chunks kept)", st.Computed, st.Requested)
	}
}
