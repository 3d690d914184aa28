package code

import (
	"context"
	"fmt"
	"io"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
)

// NewSandbox is the Options.NewExecutor of pocketeval's runs: a sandbox.Pool
// sized to env.Workers, allowed below the minimum isolation only when
// env.UnsafeNoSandbox is set (the pool never disables a layer that works;
// the flag only lifts the refusal). It records the pool's isolation report
// under "sandbox" in the run manifest and warns when running unsafe.
//
// The process must call sandbox.MaybeRunHelper first thing in main (the
// pool re-executes the binary as its set-up helper).
func NewSandbox(ctx context.Context, env evals.Env) (sandbox.Executor, io.Closer, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("start sandbox: %w", err)
	}
	pool, err := sandbox.New(sandbox.Config{Workers: env.Workers, WorkersPerZygote: env.WorkersPerZygote, Unsafe: env.UnsafeNoSandbox})
	if err != nil {
		return nil, nil, fmt.Errorf("start sandbox: %w", err)
	}
	layers := pool.Layers()
	if env.Record != nil {
		env.Record("sandbox", layers)
	}
	if layers.Unsafe && env.Warn != nil {
		env.Warn("sandbox: running model-written code below the minimum isolation, as explicitly allowed (mode %s)", layers.Mode)
	}
	return pool, pool, nil
}
