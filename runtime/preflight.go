package runtime

import (
	"context"
	"errors"
	"net"
)

// Preflighter is implemented by runtimes that can tell, without
// generating, that a request cannot succeed: an engine that knows its
// tokenizer and context size sees a prompt longer than the context, a
// replay of saved predictions sees a sample it has no prediction for.
// Preflight returns nil when the request may succeed; an error it returns
// is deterministic (the same request fails the same way every time). It
// must be safe for concurrent use.
//
// The runner preflights every selected request before the first one is
// generated, so a run that cannot succeed is refused at once instead of
// failing sample after sample.
type Preflighter interface {
	Preflight(req Request) error
}

// Transient reports whether err is a failure that trying again may not
// meet: a timeout, a transport error, or an error in the chain that says
// so itself (a method Temporary() bool returning true, as an overloaded
// server's answer does). Everything else — a prompt that does not fit, a
// malformed request, a missing prediction — fails the same way again, and
// a retry hint would mislead.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return true
	}
	for e := err; e != nil; {
		if t, ok := e.(temporaryError); ok && t.Temporary() {
			return true
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				if Transient(x) {
					return true
				}
			}
			e = nil
		default:
			e = nil
		}
	}
	return false
}

// temporary is an error that says whether it may pass (net.Error and
// the syscall errors do).
type temporaryError interface{ Temporary() bool }
