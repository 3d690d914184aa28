package cli

import (
	"context"
	"errors"

	"github.com/pocketeval/pocketeval/runtime"
)

func openMNN(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	return nil, errors.New("runtime mnn is not available in this build yet")
}
