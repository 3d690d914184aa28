//go:build nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"testing"
)

func TestOpenUnavailable(t *testing.T) {
	_, err := Open(context.Background(), Options{Model: "model.gguf"})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Open in a nollamacpp build: %v, want ErrUnavailable", err)
	}
}
