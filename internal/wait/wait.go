// Package wait holds the one context-aware sleep of the module: a wait
// that ends early, with the context's error, when the context ends.
package wait

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx ends, whichever comes first. It returns
// nil after a full wait and ctx.Err() when the context ended it; a d of
// zero or less returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
