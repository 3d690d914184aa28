//go:build cgo && mnn

package mnn

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pocketeval/pocketeval/bench"
	"github.com/pocketeval/pocketeval/runtime"
)

// memoryHelperEnv makes the test binary a one-shot bench process: it
// benches the package the variable names and prints the memory figures.
const memoryHelperEnv = "POCKETEVAL_MNN_MEMORY_HELPER"

func TestMain(m *testing.M) {
	if pkg := os.Getenv(memoryHelperEnv); pkg != "" {
		os.Exit(memoryHelper(pkg))
	}
	os.Exit(m.Run())
}

func memoryHelper(pkg string) int {
	open := func(ctx context.Context, _ bench.OpenRequest) (runtime.Runtime, error) {
		return Open(ctx, pkg, Options{Config: map[string]any{"dynamic_option": 8}})
	}
	// The same test twice, each on a fresh engine: the second must not
	// measure more than the first.
	pg := bench.PG{Prompt: 512, Gen: 16}
	rep, err := bench.Run(context.Background(), open, pkg, bench.Config{PG: []bench.PG{pg, pg}, Reps: 1}, bench.System)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mem []bench.Memory
	for _, row := range rep.Rows {
		mem = append(mem, row.Memory)
	}
	if err := json.NewEncoder(os.Stdout).Encode(mem); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestMemoryRepeatable runs the same bench (pp512+tg16 twice, each on a
// fresh engine) in three fresh processes: all six peak memory increments
// must agree within 1 % (issue #22: glibc's malloc arenas made a process's
// figure vary by up to 8 % when engine calls hopped between threads, and
// its dynamic mmap threshold made a second engine in the same process
// measure up to 47 MiB more). The package is $POCKETEVAL_MNN_BENCH_MODEL (a
// Pocket-shaped package gives a ~286 MiB figure, its second engine about
// 1.4 MiB more); without it the shared tiny-int4 package is used, whose
// figure of about 9 MiB carries up to a MiB of the Go runtime's garbage
// and a MiB more for the second engine, so it is compared within 2 MiB.
func TestMemoryRepeatable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three engine processes")
	}
	pkg := os.Getenv("POCKETEVAL_MNN_BENCH_MODEL")
	small := pkg == ""
	if small {
		pkg = filepath.Join(sharedDir(t, "models"), "mnn", "tiny-int4")
	}
	var process, engine []int64
	for i := 0; i < 3; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), memoryHelperEnv+"="+pkg)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("bench process %d: %v", i+1, err)
		}
		var ms []bench.Memory
		if err := json.Unmarshal(out, &ms); err != nil || len(ms) != 2 {
			t.Fatalf("bench process %d: %v: %s", i+1, err, out)
		}
		for _, m := range ms {
			if !m.PeakReset || m.IncrementBytes <= 0 || m.EngineBytes <= 0 || m.EngineBytes > m.IncrementBytes {
				t.Fatalf("bench process %d: memory %+v", i+1, m)
			}
			process = append(process, m.IncrementBytes)
			engine = append(engine, m.EngineBytes)
		}
	}
	t.Logf("%s: process increments %v, engine shares %v bytes (two tests per process)", filepath.Base(pkg), process, engine)
	tol := 0.01 * float64(slices.Max(process))
	if small {
		tol = 2 << 20
	}
	if spread := float64(slices.Max(process) - slices.Min(process)); spread > tol {
		t.Errorf("peak increments %v differ by %.0f bytes, more than %.0f", process, spread, tol)
	}
}
