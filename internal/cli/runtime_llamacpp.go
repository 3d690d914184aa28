package cli

import (
	"context"
	"errors"

	"github.com/pocketeval/pocketeval/runtime"
)

func openLlamacpp(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	return nil, errors.New("runtime llamacpp is not available in this build yet")
}
