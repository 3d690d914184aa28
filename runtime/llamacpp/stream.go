//go:build !nollamacpp

package llamacpp

import (
	"context"

	"github.com/pocketeval/pocketeval/runtime"
)

// GenerateStream is Generate that calls emit with the text as it is
// decoded (held back where a stop sequence or a character may still be
// incomplete), so `pocketeval serve` streams tokens as they come. emit
// runs on the caller's goroutine: a slow client does not stall the
// sequences that share the decode loop.
func (r *Runtime) GenerateStream(ctx context.Context, req runtime.Request, emit func(string) error) (runtime.Response, error) {
	return runtime.Stream(ctx, emit, func(ctx context.Context, onText func(string)) (runtime.Response, error) {
		return r.generate(ctx, req, runtime.NewTextStream(onText, req.Gen.Stop))
	})
}
