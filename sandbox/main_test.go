//go:build linux

package sandbox

import (
	"os"
	"testing"
)

// TestMain lets the test binary act as the sandbox's set-up helper, and
// closes the shared test pool.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	code := m.Run()
	if pool != nil {
		if err := pool.Close(); err != nil {
			println("close test pool:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
