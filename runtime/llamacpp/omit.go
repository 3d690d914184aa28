//go:build nollamacpp

package llamacpp

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/runtime"
)

// Runtime is absent from this build: Open always returns ErrUnavailable.
//
// The tag exists because the binding links purego, which in CGO_ENABLED=0
// builds makes the Go runtime report cgo as enabled; syscall.AllThreadsSyscall
// (used by psx and thus go-landlock) then panics. A CGO_ENABLED=0 binary
// that must apply Landlock to all threads is built with -tags nollamacpp.
type Runtime struct{}

var _ runtime.Runtime = (*Runtime)(nil)

// Open reports that the runtime is not in this build.
func Open(ctx context.Context, opts Options) (*Runtime, error) {
	return nil, fmt.Errorf("open llamacpp: %w", ErrUnavailable)
}

// Generate reports that the runtime is not in this build.
func (*Runtime) Generate(context.Context, runtime.Request) (runtime.Response, error) {
	return runtime.Response{}, ErrUnavailable
}

// Close does nothing.
func (*Runtime) Close() error { return nil }

// CountPrompts reports that the runtime is not in this build.
func (*Runtime) CountPrompts(context.Context, []runtime.PromptItem) ([]runtime.PromptCount, error) {
	return nil, ErrUnavailable
}

// PrefillStats reports nothing: the runtime is not in this build.
func (*Runtime) PrefillStats() PrefillStats { return PrefillStats{} }

// Vocab describes no vocabulary: the runtime is not in this build.
func (*Runtime) Vocab() runtime.VocabInfo { return runtime.VocabInfo{} }

// Tokenize reports that the runtime is not in this build.
func (*Runtime) Tokenize(string, bool) ([]int32, error) { return nil, ErrUnavailable }

// Logits reports that the runtime is not in this build.
func (*Runtime) Logits(context.Context, []int32, int, func(int, []float32) error) error {
	return ErrUnavailable
}
