package runtime

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
)

type temporary struct{ t bool }

func (e temporary) Error() string   { return "server busy" }
func (e temporary) Temporary() bool { return e.t }

func TestTransient(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("prompt longer than the context"), false},
		{fmt.Errorf("generate: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("generate: %w", context.Canceled), false},
		{fmt.Errorf("post: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")}), true},
		{fmt.Errorf("giving up: %w", temporary{true}), true},
		{fmt.Errorf("bad request: %w", temporary{false}), false},
		{errors.Join(errors.New("a"), temporary{true}), true},
	} {
		if got := Transient(c.err); got != c.want {
			t.Errorf("Transient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
