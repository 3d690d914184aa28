package mnn

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/runtime"
)

// benchAtDepth runs a Bench request at req.Depth: the KV cache is first
// filled, untimed, with req.Depth copies of the bench token, then the
// measured prompt (max(NPrompt, 1) more copies; a single token for a
// decode-only test, untimed as at depth 0) runs from that cache and NGen
// tokens are decoded step by step. Keeping the cache between the two
// prefills needs reuse_kv, which the engines load with only when the
// prefix cache is on.
func (r *Runtime) benchAtDepth(ctx context.Context, e engine, req runtime.BenchRequest) (runtime.BenchResult, stats, error) {
	if r.opts.PrefixCache != "on" {
		return runtime.BenchResult{}, stats{}, fmt.Errorf("depth %d needs the KV cache kept between calls (reuse_kv: the prefix cache on): %w", req.Depth, runtime.ErrNotSupported)
	}
	ids := make([]int, req.Depth+max(req.NPrompt, 1))
	for i := range ids {
		ids[i] = benchToken
	}
	if _, err := e.Prefill(ids[:req.Depth], 0); err != nil {
		return runtime.BenchResult{}, stats{}, fmt.Errorf("fill the cache to depth %d: %w", req.Depth, err)
	}
	return benchStepwise(ctx, e, ids, req.Depth, req.NGen)
}
