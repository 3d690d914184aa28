package cli

import (
	"context"
	"errors"
	"testing"

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
