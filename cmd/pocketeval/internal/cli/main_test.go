package cli

import (
	"os"
	"os/exec"
	"testing"

	"github.com/pocketeval/pocketeval/sandbox"
)

// TestMain lets this test binary act as the sandbox's set-up helper, so
// tests that run code tasks through the real sandbox work, and as the
// pocketeval command itself (selfCommand), so tests that kill or signal a
// run need no separate build.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if os.Getenv(selfEnv) == "1" {
		if os.Getenv(blockingLoadEnv) == "1" {
			os.Exit(mainBlockingLoad())
		}
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// selfEnv makes the test binary run Main with its arguments.
const selfEnv = "POCKETEVAL_TEST_AS_MAIN"

// selfCommand is the pocketeval command line args run by this test binary.
func selfCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), selfEnv+"=1")
	return cmd
}
