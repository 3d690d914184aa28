package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxRunUsage: a program file that cannot be read is a usage error
// (exit 2), not a failing program (exit 1), and limits beyond a day are
// refused before anything runs. Issue 21.
func TestSandboxRunUsage(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nonexistent.py")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sandbox", "run", missing}, "read program: open " + missing},
		{[]string{"sandbox", "run", "--timeout", "900000h", missing}, "--timeout 900000h0m0s: must be at most 24h0m0s"},
		{[]string{"sandbox", "run", "--wall", "25h", missing}, "--wall 25h0m0s: must be at most 24h0m0s"},
	} {
		code, _, errOut := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
