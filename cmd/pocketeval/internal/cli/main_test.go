package cli

import (
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
)

// TestMain lets this test binary act as the sandbox's set-up helper, so
// tests that run code tasks through the real sandbox work.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
