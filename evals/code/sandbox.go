package code

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

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
	pool, err := sandbox.New(sandbox.Config{Workers: env.Workers, Unsafe: env.UnsafeNoSandbox, BaseUID: poolBaseUID()})
	if err != nil {
		return nil, nil, fmt.Errorf("start sandbox: %w", err)
	}
	layers := pool.Layers()
	if env.Record != nil {
		env.Record("sandbox", layers)
	}
	if layers.Unsafe && env.Warn != nil {
		env.Warn("sandbox: running model-written code below the minimum isolation, as --unsafe-no-sandbox allows (mode %s)", layers.Mode)
	}
	return pool, pool, nil
}

var poolSeq atomic.Int64

// poolBaseUID gives every pool its own block of 65536 worker uids (the
// sandbox takes a fresh uid per run from its block, in turn). RLIMIT_NPROC
// is counted per uid machine-wide, so two pools drawing the same uids at
// the same time — the humaneval and mbpp pools of one run, two runs on one
// CI machine — would share a process budget and could fail each other's
// programs with EAGAIN. Blocks come from the process id and a per-process
// counter: 8192 blocks from uid 200000 up to about 5.4e8.
func poolBaseUID() int {
	slot := (os.Getpid()%2048)*4 + int(poolSeq.Add(1)%4)
	return 200000 + slot*(1<<16)
}
