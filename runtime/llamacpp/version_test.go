//go:build !nollamacpp

package llamacpp

import (
	"regexp"
	"strings"
	"testing"
)

// TestReadVersion: the label names llama.cpp's own commit and the npm
// package the libraries came from, not node-llama-cpp's release name
// ("ggml-org/llama.cpp@v0.4.0", no llama.cpp release; issue 48).
func TestReadVersion(t *testing.T) {
	dir, err := LibDir("")
	if err != nil {
		t.Skipf("no llama.cpp libraries: %v", err)
	}
	v := readVersion(dir)
	t.Logf("llama.cpp %s", v)
	if !regexp.MustCompile(`^(b\d+ \(commit [0-9a-f]{7,40}\)|commit [0-9a-f]{7,40}), npm @node-llama-cpp/linux-[a-z0-9]+@\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("version %q: want llama.cpp's commit and the npm package", v)
	}
	if strings.Contains(v, "v0.4.0") {
		t.Errorf("version %q names node-llama-cpp's release", v)
	}
	if got := readVersion(t.TempDir()); got != "unknown" {
		t.Errorf("empty directory: %q, want unknown", got)
	}
}
