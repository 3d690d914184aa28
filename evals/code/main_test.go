package code

import (
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// TestMain lets the test binary act as the sandbox's set-up helper, so the
// tests can run programs through the real sandbox, and keeps the reference
// times the tests measure out of the user's cache.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	testCacheDir, err := os.MkdirTemp("", "pocketeval-code-test-cache-")
	if err != nil {
		println(err.Error())
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", testCacheDir)
	code := m.Run()
	if err := codetest.Close(); err != nil {
		println("close the test pool:", err.Error())
		code = 1
	}
	os.RemoveAll(testCacheDir)
	os.Exit(code)
}
