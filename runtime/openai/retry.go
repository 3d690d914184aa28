package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryableError marks a failure a new attempt may fix.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// Temporary marks the failure transient for runtime.Transient, so a run
// that gave up on it tells the user a later attempt may succeed.
func (e *retryableError) Temporary() bool { return true }

// retry runs attempt until it succeeds, fails permanently, the caller's
// context ends, or MaxRetries retries are spent. Each attempt gets its own
// RequestTimeout.
func retry[T any](ctx context.Context, c *Client, op string, attempt func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	for n := 0; ; n++ {
		actx, cancel := context.WithTimeout(ctx, c.timeout)
		v, err := attempt(actx)
		timedOut := actx.Err() == context.DeadlineExceeded
		cancel()
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return zero, fmt.Errorf("%s: %w", op, ctx.Err())
		}
		var wait time.Duration
		retryable := false
		var ae *APIError
		var re *retryableError
		switch {
		case timedOut || errors.Is(err, context.DeadlineExceeded):
			retryable = true
			err = &retryableError{err: fmt.Errorf("attempt timed out after %v", c.timeout)}
		case errors.As(err, &ae):
			retryable = ae.Temporary()
			wait = ae.RetryAfter
		case errors.As(err, &re):
			retryable = true
		}
		if !retryable {
			return zero, fmt.Errorf("%s: %w", op, err)
		}
		if n >= c.opts.MaxRetries {
			if n == 0 {
				return zero, fmt.Errorf("%s: %w", op, err)
			}
			return zero, fmt.Errorf("%s: giving up after %d attempts: %w", op, n+1, err)
		}
		wait, why := c.retryWait(n, wait)
		if c.opts.OnRetry != nil {
			c.opts.OnRetry(fmt.Sprintf("%s: %v; retrying in %v (%s; attempt %d of %d)", op, err, wait, why, n+2, c.opts.MaxRetries+1))
		}
		if err := c.sleep(ctx, wait); err != nil {
			return zero, fmt.Errorf("%s: %w", op, err)
		}
	}
}

// retryWait is the delay before retry n+1 and what decided it: the
// server's Retry-After (asked), else the backoff, each capped by
// MaxRetryAfter and by the request timeout, so no wait is ever longer
// than an attempt may be.
func (c *Client) retryWait(n int, asked time.Duration) (time.Duration, string) {
	wait, why := c.backoff(n), "back-off"
	if asked > 0 {
		wait, why = asked, fmt.Sprintf("the server's Retry-After %v", asked)
		if lim := c.maxRetryAfter(); wait > lim {
			wait, why = lim, fmt.Sprintf("the server's Retry-After %v, capped at the maximum %v", asked, lim)
		}
	}
	if wait > c.timeout {
		wait, why = c.timeout, why+fmt.Sprintf(", capped at the request timeout %v", c.timeout)
	}
	return wait, why
}

// backoff returns the delay before retry n+1: exponential from
// BackoffBase, capped at BackoffMax, with "equal jitter" (uniform in
// [d/2, d]) so parallel workers do not retry in lockstep.
func (c *Client) backoff(n int) time.Duration {
	base, max := c.opts.BackoffBase, c.opts.BackoffMax
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if max <= 0 {
		max = 30 * time.Second
	}
	d := base
	for i := 0; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + time.Duration(c.jitter(int64(half)+1))
}

func (c *Client) maxRetryAfter() time.Duration {
	if c.opts.MaxRetryAfter > 0 {
		return c.opts.MaxRetryAfter
	}
	return 2 * time.Minute
}

// parseRetryAfter reads "retry-after-ms" (OpenAI's millisecond form) or
// "Retry-After" (seconds or an HTTP date). Zero means none or unparseable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
