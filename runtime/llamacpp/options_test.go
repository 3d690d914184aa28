package llamacpp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidUTF8(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"abc", "abc"},
		{"日本", "日本"},
		{"ab\xe6\x97", "ab"},            // 日 cut after 2 of 3 bytes
		{"ab\xf0\x9f\x98", "ab"},        // 😀 cut after 3 of 4 bytes
		{"ab\xf0", "ab"},                // lead byte alone
		{"a\xffb", "a\uFFFDb"},          // invalid byte inside
		{"a\x97b", "a\uFFFDb"},          // stray continuation byte
		{"\xe6\x97\xa5\x97", "日\uFFFD"}, // complete rune then stray continuation
	}
	for _, tt := range tests {
		if got := validUTF8([]byte(tt.in)); got != tt.want {
			t.Errorf("validUTF8(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFindStop(t *testing.T) {
	check := func(out string, prev int, stops []string, want int) {
		t.Helper()
		bs := make([][]byte, len(stops))
		for i, s := range stops {
			bs[i] = []byte(s)
		}
		if got := findStop([]byte(out), prev, bs); got != want {
			t.Errorf("findStop(%q, %d, %q) = %d, want %d", out, prev, stops, got, want)
		}
	}
	check("hello world", 5, []string{"wor"}, 6)
	check("hello world", 5, []string{"lo w"}, 3)    // straddles the old text and the new piece
	check("hello world", 11, []string{"hello"}, -1) // an old match was already seen
	check("a.b.c", 0, []string{"c", "."}, 1)        // earliest of several
	check("abc", 0, []string{"zz"}, -1)
	check("x\nUser:", 1, []string{"\nUser:", "User"}, 1) // the earlier start wins
}

func TestLibDir(t *testing.T) {
	dir := t.TempDir()
	for _, name := range requiredLibs {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	t.Setenv(LibEnv, dir)
	if got, err := LibDir(""); err != nil || got != dir {
		t.Errorf("LibDir with $%s set = %q, %v; want %q", LibEnv, got, err, dir)
	}
	t.Setenv(LibEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got := DefaultLibDir(); got != "/xdg/pocketeval/llamacpp/lib" {
		t.Errorf("DefaultLibDir = %q", got)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultLibDir(); got != "/home/u/.cache/pocketeval/llamacpp/lib" {
		t.Errorf("DefaultLibDir = %q", got)
	}
	os.Remove(filepath.Join(dir, "libggml.so"))
	if _, err := LibDir(dir); !errors.Is(err, ErrLibraryMissing) || !strings.Contains(err.Error(), "libggml.so") {
		t.Errorf("LibDir without libggml.so: %v, want ErrLibraryMissing naming the file", err)
	}
}
