package bfclmt

import (
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// TestMain lets the test binary act as the sandbox's set-up helper, so the
// tests run BFCL's backends through the real sandbox.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	code := m.Run()
	if err := codetest.Close(); err != nil {
		println("close the test pool:", err.Error())
		code = 1
	}
	os.Exit(code)
}
