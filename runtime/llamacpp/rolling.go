//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"

	"github.com/pocketeval/pocketeval/runtime"
)

var _ runtime.RollingLoglikelihooder = (*Runtime)(nil)

// LoglikelihoodRolling scores each text whole, in windows of the context
// size (lm-eval's max_length), as runtime.LoglikRolling describes.
func (r *Runtime) LoglikelihoodRolling(ctx context.Context, texts []string) ([]runtime.RollingResult, error) {
	out := make([]runtime.RollingResult, len(texts))
	for i, t := range texts {
		res, err := runtime.LoglikRolling(ctx, r, t, r.nCtx)
		if err != nil {
			return nil, wrapUnlessCtx("loglikelihood_rolling", fmt.Errorf("text %d: %w", i, err))
		}
		out[i] = res
	}
	return out, nil
}
