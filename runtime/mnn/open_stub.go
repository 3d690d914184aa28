//go:build !cgo || !mnn

package mnn

import (
	"context"
	"fmt"
)

// Available reports whether this build includes the MNN engine.
const Available = false

// Open fails: this build does not include MNN. The error wraps
// ErrUnavailable.
func Open(ctx context.Context, path string, opts Options) (*Runtime, error) {
	return nil, fmt.Errorf("open mnn %s: %w", path, ErrUnavailable)
}

// Version returns "" in a build without MNN.
func Version() string { return "" }
