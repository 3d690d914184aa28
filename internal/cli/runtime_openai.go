package cli

import (
	"context"
	"errors"

	"github.com/pocketeval/pocketeval/runtime"
)

func openOpenAI(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	return nil, errors.New("runtime openai is not available in this build yet")
}
