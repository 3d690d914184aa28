//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/randmodel"
)

// writeTiny writes a random-weight qwen3 model of the tiny shape with
// matrices of type typ.
func writeTiny(t *testing.T, typ gguf.TensorType, seed uint64) string {
	t.Helper()
	s := randmodel.Shapes["tiny"]
	v, err := randmodel.SyntheticBPE(s.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), fmt.Sprintf("tiny-%v.gguf", typ))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := randmodel.Write(f, s, randmodel.Options{Name: "tiny", Type: typ, Vocab: v, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExactBatchIdenticalTexts: with Batch "exact", requests decoded
// together give the texts each gives alone with batching off, bit for
// bit, on quantized models (whose kernels pass checkInvariant): prompts
// of 3 to 300 tokens cut into 64-token grid chunks, then four sharing a
// preamble whose whole chunks are kept, generations long enough that
// attention crosses 256 and 512 cells, more requests than sequences so
// slots are reused.
func TestExactBatchIdenticalTexts(t *testing.T) {
	modelPath(t, stories) // skips when the libraries are absent
	var prompts []string
	for i := range 12 {
		p := fmt.Sprintf("Request %d: ", i) + strings.Repeat(storyPrompts[i%len(storyPrompts)]+", and then ", i*i%37) + "\n"
		prompts = append(prompts, p)
	}
	// Then, one at a time, four that share a preamble of several grid
	// chunks: each keeps the whole chunks the one before it left.
	var shared []string
	preamble := strings.Repeat("The little dog ran to the park and played with a ball. ", 12)
	for i := range 4 {
		shared = append(shared, preamble+fmt.Sprintf("Question %d?\n", i))
	}
	for _, typ := range []gguf.TensorType{gguf.Q8_0, gguf.Q4_0} {
		t.Run(fmt.Sprint(typ), func(t *testing.T) {
			model := writeTiny(t, typ, 5)
			base := Options{Model: model, ContextSize: 1024, BatchSize: 64, Threads: 1}
			off := base
			off.Batch, off.Workers = "off", 1
			ref, err := Open(context.Background(), off)
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			want := generateAll(t, ref, prompts, 300)
			for _, p := range shared {
				want = append(want, generateAll(t, ref, []string{p}, 32)...)
			}
			long := 0
			for _, w := range want {
				if w.PromptTokens+w.CompletionTokens > 512 {
					long++
				}
			}
			if long == 0 {
				t.Errorf("no request went past 512 tokens")
			}
			on := base
			on.Batch, on.Workers = "exact", 4
			rt, err := Open(context.Background(), on)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			got := generateAll(t, rt, prompts, 300)
			before := rt.PrefillStats()
			for _, p := range shared {
				got = append(got, generateAll(t, rt, []string{p}, 32)...)
			}
			if st := rt.PrefillStats(); st.Computed-before.Computed >= st.Requested-before.Requested {
				t.Errorf("shared preamble: computed %d of %d prompt tokens: no grid chunk was kept", st.Computed-before.Computed, st.Requested-before.Requested)
			}
			for i := range want {
				if got[i].Text != want[i].Text || got[i].FinishReason != want[i].FinishReason || got[i].CompletionTokens != want[i].CompletionTokens {
					t.Errorf("request %d: batched %q (%s, %d tokens), alone %q (%s, %d tokens)", i,
						got[i].Text, got[i].FinishReason, got[i].CompletionTokens, want[i].Text, want[i].FinishReason, want[i].CompletionTokens)
				}
			}
			steps, seqSteps := rt.sched.steps.Load(), rt.sched.seqSteps.Load()
			if seqSteps <= steps {
				t.Errorf("%d sequences in %d decodes: nothing was batched", seqSteps, steps)
			}
			t.Logf("%d decodes of %d sequences", steps, seqSteps)
			if mode, _ := rt.Describe().Settings["batch"].(string); !strings.HasPrefix(mode, "exact:") {
				t.Errorf("Describe batch = %q", mode)
			}
		})
	}
}

// TestExactBatchRefused: Open refuses Batch "exact" where batching would
// change results: stories260K's F32 kernels, and more than one thread.
func TestExactBatchRefused(t *testing.T) {
	story := modelPath(t, stories)
	_, err := Open(context.Background(), Options{Model: story, Batch: "exact", Workers: 4})
	if !errors.Is(err, ErrNotBatchInvariant) || !strings.Contains(err.Error(), "with 2 sequences") {
		t.Errorf("stories260K, exact batching: %v, want ErrNotBatchInvariant", err)
	}
	q := writeTiny(t, gguf.Q8_0, 5)
	if _, err := Open(context.Background(), Options{Model: q, Batch: "exact", Workers: 4, Threads: 2}); !errors.Is(err, ErrNotBatchInvariant) {
		t.Errorf("2 threads: %v, want ErrNotBatchInvariant", err)
	}
	// One sequence is never batched: nothing to check.
	rt, err := Open(context.Background(), Options{Model: story, Batch: "exact", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	rt.Close()
}
