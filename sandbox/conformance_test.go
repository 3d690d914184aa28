//go:build linux

package sandbox_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/sandboxtest"
)

// rootPool is a pool of two fully isolated workers, closed with the test.
func rootPool(t *testing.T) *sandbox.Pool {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("runs as root (as CI does)")
	}
	p, err := sandbox.New(sandbox.Config{Workers: 2})
	if err != nil {
		if strings.Contains(err.Error(), "find python") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPoolConformance(t *testing.T) {
	p := rootPool(t)
	if err := sandboxtest.Test(context.Background(), p); err != nil {
		t.Error(err)
	}
}

// TestSignalsAndConcurrencyUnderLoad runs the self-signal and the
// ordinary-concurrency cases with every core saturated, two copies of each
// at once on a pool of two workers (concurrent sandboxes, each program
// with its full task budget): the verdicts must not change with load or
// with what runs next to them.
func TestSignalsAndConcurrencyUnderLoad(t *testing.T) {
	p := rootPool(t)
	stop, err := sandbox.StartCPUHogs(runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	cases := append(append([]sandboxtest.Case(nil), sandboxtest.SignalCases...), sandboxtest.ConcurrencyCases...)
	var wg sync.WaitGroup
	for _, c := range cases {
		for range 2 {
			wg.Go(func() {
				if _, err := sandboxtest.Check(context.Background(), p, c); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
}

// brokenExecutor passes everything: the conformance suite must catch it.
type brokenExecutor struct{}

func (brokenExecutor) Run(ctx context.Context, p sandbox.Program) (sandbox.Result, error) {
	return sandbox.Result{Verdict: sandbox.Pass}, nil
}

func TestConformanceCatchesBrokenExecutor(t *testing.T) {
	err := sandboxtest.Test(context.Background(), brokenExecutor{})
	if err == nil {
		t.Fatal("an executor that passes everything was accepted")
	}
	for _, want := range []string{"early sys.exit(0)", "always-equal object", "cpu spin", "output flood", "self SIGKILL", "os.abort"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("violations do not mention %q:\n%v", want, err)
		}
	}
}
