package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// closeRecorder is a runtime whose load the test controls.
type closeRecorder struct {
	runtime.Runtime
	closed chan struct{}
}

func (c *closeRecorder) Close() error { close(c.closed); return nil }

// TestOpenCancellable (issue 36): a cancelled context stops the wait for a
// load that cannot be interrupted (it blocks until the test lets it go),
// with context.Canceled, so that Main exits 130; the runtime the load
// returns afterwards is closed. A load that ends first is returned.
func TestOpenCancellable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	loading := make(chan struct{})
	rt := &closeRecorder{closed: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		_, err := openCancellable(ctx, func() (runtime.Runtime, error) {
			close(loading)
			<-release
			return rt, nil
		})
		errc <- err
	}()
	<-loading
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled load: %v, want context.Canceled", err)
	}
	close(release)
	<-rt.closed // the late runtime is closed (the test hangs otherwise)

	got, err := openCancellable(context.Background(), func() (runtime.Runtime, error) { return rt, nil })
	if err != nil || got != rt {
		t.Fatalf("load that ends: %v, %v", got, err)
	}
}

// blockingLoadEnv makes the test binary run Main with the test tasks and a
// "blockload" runtime whose load prints "loading" and never ends, as a C
// model load that no context interrupts.
const blockingLoadEnv = "POCKETEVAL_TEST_BLOCKING_LOAD"

func mainBlockingLoad() int {
	f, _, _ := testFactory()
	f.IO = System()
	f.Runtimes = func() []drivers.Driver {
		return append(drivers.All(), drivers.Driver{Name: "blockload", NewFlags: func() drivers.Flags { return blockingFlags{} }})
	}
	ctx, stop := interruptContext(f.IO.ErrOut)
	defer stop()
	return Execute(ctx, f, os.Args[1:])
}

type blockingFlags struct{}

func (blockingFlags) AddFlags(*pflag.FlagSet)                     {}
func (blockingFlags) Validate(drivers.Common) error               { return nil }
func (blockingFlags) Model(drivers.Common) (drivers.Model, error) { return drivers.Model{}, nil }
func (blockingFlags) Open(context.Context, drivers.Common) (runtime.Runtime, error) {
	fmt.Fprintln(os.Stderr, "loading")
	for {
		time.Sleep(time.Hour)
	}
}

// TestSignalDuringLoad (issue 36): one SIGTERM while the model loads (a
// load that never ends) stops the run with exit 130 and says so; the
// results directory holds nothing that looks complete.
func TestSignalDuringLoad(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	cmd := selfCommand("run", "--runtime", "blockload", "--tasks", "alpha", "--out", out)
	cmd.Env = append(cmd.Env, blockingLoadEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && sc.Text() != "loading" {
	}
	cmd.Process.Signal(syscall.SIGTERM)
	var rest strings.Builder
	done := make(chan error, 1)
	go func() {
		for sc.Scan() {
			rest.WriteString(sc.Text() + "\n")
		}
		done <- cmd.Wait()
	}()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("one signal did not stop the run during the load")
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != ExitCancelled || !strings.Contains(rest.String(), "interrupted while loading") {
		t.Fatalf("exit %v, stderr after the signal:\n%s", werr, rest.String())
	}
	if m, err := results.ReadManifest(out); err == nil && m.Status == results.StatusComplete {
		t.Errorf("the results directory says complete: %+v", m)
	}
}
