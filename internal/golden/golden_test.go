package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	os.WriteFile(path, []byte("same\n"), 0o644)

	r := &recorder{TB: t}
	Check(r, path, []byte("same\n"))
	if r.failed {
		t.Error("equal output failed")
	}
	if _, err := os.Stat(path + ".got"); err == nil {
		t.Error("a .got file was written for equal output")
	}

	r = &recorder{TB: t}
	Check(r, path, []byte("other\n"))
	if !r.failed {
		t.Error("different output passed")
	}
	if b, err := os.ReadFile(path + ".got"); err != nil || string(b) != "other\n" {
		t.Errorf(".got = %q, %v", b, err)
	}

	r = &recorder{TB: t}
	Check(r, filepath.Join(dir, "missing.golden"), nil)
	if r.failed {
		t.Error("empty output against a missing golden file failed (a missing file counts as empty)")
	}
}
