package cli

import (
	"context"
	"errors"

	"github.com/pocketeval/pocketeval/runtime"
)

func openReplay(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	return nil, errors.New("runtime replay is not available in this build yet")
}
