package code

import (
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
)

// TestMain lets the test binary act as the sandbox's set-up helper, so the
// conformance tests can run programs through the real sandbox.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
