package regfile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestSHA256Known: a file hashed once is not read again while it is
// unchanged; a change (here of its size, or its times) is hashed; a file
// changed within the racy margin is never remembered.
func TestSHA256Known(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("digests are remembered on Linux only")
	}
	p := filepath.Join(t.TempDir(), "f")
	write := func(s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want string, hashes int64) {
		t.Helper()
		n := DigestsComputed()
		got, err := SHA256Known(p)
		if err != nil {
			t.Fatal(err)
		}
		if got != sum([]byte(want)) {
			t.Errorf("digest of %q: %s", want, got)
		}
		if d := DigestsComputed() - n; d != hashes {
			t.Errorf("%q hashed %d times, want %d", want, d, hashes)
		}
	}

	write("one")
	check("one", 1) // the default margin: just written, not remembered
	check("one", 1)

	defer SetRacyMargin(SetRacyMargin(-time.Hour))
	check("one", 1)
	check("one", 0) // remembered
	write("three")
	check("three", 1)
	check("three", 0)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	check("three", 1) // other times: hashed again
}

// TestRememberChangedWhileRead: a file whose identity differed before and
// after the read is not remembered.
func TestRememberChangedWhileRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("digests are remembered on Linux only")
	}
	defer SetRacyMargin(SetRacyMargin(-time.Hour))
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("a"), 0o644)
	before, _ := os.Stat(p)
	os.WriteFile(p, []byte("ab"), 0o644)
	after, _ := os.Stat(p)
	Remember(before, after, time.Now(), "x")
	if _, ok := Known(before); ok {
		t.Error("remembered the file as it was before the read")
	}
	if _, ok := Known(after); ok {
		t.Error("remembered the file as it was after the read")
	}
	Remember(after, after, time.Now(), "y")
	if s, ok := Known(after); !ok || s != "y" {
		t.Errorf("Known = %q, %v after Remember", s, ok)
	}
}
