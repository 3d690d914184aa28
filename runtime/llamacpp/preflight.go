//go:build !nollamacpp

package llamacpp

import (
	"context"

	"github.com/pocketeval/pocketeval/runtime"
)

var _ runtime.Preflighter = (*Runtime)(nil)

// Preflight renders and tokenises req exactly as Generate does, without
// generating: it returns the error Generate would return before its first
// token (ErrPromptTooLong for a prompt the context cannot hold, a chat
// template that fails to render), else nil.
func (r *Runtime) Preflight(req runtime.Request) error {
	_, _, err := r.promptTokens(context.Background(), req)
	return err
}
