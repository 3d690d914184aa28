//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// TestBenchDepth: the depth tokens are computed before the measured
// prompt, on the same sequence, and count against the context.
func TestBenchDepth(t *testing.T) {
	rt := open(t, stories, Options{ContextSize: 128})
	ctx := context.Background()
	before := rt.PrefillStats().Computed
	res, err := rt.Bench(ctx, runtime.BenchRequest{NPrompt: 16, NGen: 8, Depth: 64})
	if err != nil {
		t.Fatal(err)
	}
	if res.PromptTokens != 16 || res.GenTokens != 8 || res.PrefillTime <= 0 || res.DecodeTime <= 0 {
		t.Errorf("pp16+tg8 at depth 64: %+v", res)
	}
	if got := rt.PrefillStats().Computed - before; got != 64+16 {
		t.Errorf("computed %d prompt tokens, want 80 (64 cached first, then 16 measured)", got)
	}
	if _, err := rt.Bench(ctx, runtime.BenchRequest{NGen: 4, Depth: 32}); err != nil {
		t.Errorf("tg4 at depth 32: %v", err)
	}
	if _, err := rt.Bench(ctx, runtime.BenchRequest{NPrompt: 32, NGen: 32, Depth: rt.nCtx - 32}); !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("depth past the context: got %v, want ErrPromptTooLong", err)
	}
}
