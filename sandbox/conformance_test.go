//go:build linux

package sandbox_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/sandboxtest"
)

func TestPoolConformance(t *testing.T) {
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
	defer p.Close()
	if err := sandboxtest.Test(context.Background(), p); err != nil {
		t.Error(err)
	}
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
	for _, want := range []string{"early sys.exit(0)", "always-equal object", "cpu spin", "output flood"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("violations do not mention %q:\n%v", want, err)
		}
	}
}
