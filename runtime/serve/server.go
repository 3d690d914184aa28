package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ShutdownOptions say how Serve stops. The zero value cancels running
// requests as soon as ctx ends.
type ShutdownOptions struct {
	// Grace is how long requests in flight (streams included) may run on
	// after ctx ends.
	Grace time.Duration
	// Force, when it becomes ready (closed or sent on), ends the grace
	// period at once: a second Ctrl-C. Nil means never.
	Force <-chan struct{}
	// Started, when set, is called as the shutdown begins.
	Started func()
}

// Serve serves h on ln until ctx ends, then shuts down gracefully: it stops
// accepting connections, waits up to the grace period for requests in
// flight to finish, then closes what is left, which cancels their
// generations. It returns nil after a clean shutdown and an error when
// requests had to be cancelled.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, so ShutdownOptions) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		// Generations run long: no write timeout. Idle keep-alive
		// connections are reaped.
		IdleTimeout: 2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	if so.Started != nil {
		so.Started()
	}
	sctx, cancel := context.WithTimeout(context.Background(), so.Grace)
	defer cancel()
	if so.Force != nil {
		go func() {
			select {
			case <-so.Force:
				cancel()
			case <-sctx.Done():
			}
		}()
	}
	err := srv.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), serr)
	}
	if err != nil {
		cerr := srv.Close()
		return fmt.Errorf("shutdown %s: running requests were cancelled: %w", ln.Addr(), errors.Join(err, cerr))
	}
	return nil
}
