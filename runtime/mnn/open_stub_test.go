//go:build !cgo || !mnn

package mnn

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestOpenWithoutMNN(t *testing.T) {
	_, err := Open(context.Background(), "pkg", Options{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "-tags mnn") {
		t.Fatalf("err = %v, want ErrUnavailable naming the tag", err)
	}
	if Available {
		t.Error("Available = true in a build without MNN")
	}
}
