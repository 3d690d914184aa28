package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// interruptContext is cancelled by the first SIGINT or SIGTERM, which lets
// every stage stop at its next check (loading, rendering, generating,
// scoring) and the run write what it finished, so it resumes. A second
// signal exits at once with 130: whatever the first one waits for (a
// blocking read, an engine call that cannot be cut short), the user keeps
// control. Samples already appended are on disk either way.
func interruptContext(errOut io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			fmt.Fprintf(errOut, "\n%v: stopping; finished samples are kept (signal again to exit at once)\n", s)
			cancel()
		case <-done:
			return
		}
		select {
		case <-sig:
			fmt.Fprintln(errOut, "second signal: exiting now; run the same command again to resume")
			os.Exit(ExitCancelled)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel()
	}
}
