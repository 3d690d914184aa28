package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// interpreter is the resolved Python: the real binary (never a pyenv-style
// shim), its installation prefix and version.
type interpreter struct {
	Exe     string
	Prefix  string
	Version string
}

// resolvePython finds name (python3 when empty) and asks it once for its
// real executable, so that shims (bash scripts costing ~80 ms per start)
// are never run per program.
func resolvePython(ctx context.Context, name string) (interpreter, error) {
	if name == "" {
		name = "python3"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return interpreter{}, fmt.Errorf("find python %q: %w", name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	const script = "import os, sys; print(os.path.realpath(sys.executable)); print(os.path.realpath(sys.base_prefix)); print(sys.version.split()[0])"
	out, err := exec.CommandContext(ctx, path, "-I", "-B", "-c", script).Output()
	if err != nil {
		return interpreter{}, fmt.Errorf("resolve python %s: %w", path, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !filepath.IsAbs(lines[0]) || !filepath.IsAbs(lines[1]) {
		return interpreter{}, fmt.Errorf("resolve python %s: unexpected answer %q", path, out)
	}
	return interpreter{Exe: lines[0], Prefix: lines[1], Version: lines[2]}, nil
}
