package thp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestModeParse(t *testing.T) {
	for text, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never\n": "always",
		"always madvise [never]\n": "never",
		"":                         "",
	} {
		p := filepath.Join(t.TempDir(), "enabled")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		old := modePath
		modePath = p
		got := readMode()
		modePath = old
		if got != want {
			t.Errorf("%q: mode %q, want %q", text, got, want)
		}
	}
	Advise(make([]byte, 3*Size)) // must not fail wherever it runs
	Advise(nil)
}
