package regfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 2<<30); err != nil { // 2 GiB of holes
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(a, b)
	os.Symlink(b, a)
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o644)
	for _, c := range []struct {
		path string
		max  int64
	}{{fifo, MaxConfig}, {"/dev/zero", MaxConfig}, {dir, MaxConfig}, {sparse, MaxData}, {a, MaxConfig}, {small, 4}} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(c.path, c.max); done <- err }()
		select {
		case err := <-done:
			if !IsUnusable(err) {
				t.Errorf("ReadFile(%s) = %v, want an unusable input", filepath.Base(c.path), err)
			}
			if err := Check(c.path, c.max); !IsUnusable(err) {
				t.Errorf("Check(%s) = %v, want an unusable input", filepath.Base(c.path), err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("ReadFile(%s) hangs", c.path)
		}
	}
	if b, err := ReadFile(small, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadFile(small) = %q, %v", b, err)
	}
}

func TestGzipBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(make([]byte, 64<<20)) // 64 MiB of zeros: a 64 KB file
	zw.Close()
	bomb := filepath.Join(dir, "bomb.gz")
	os.WriteFile(bomb, buf.Bytes(), 0o644)
	if _, err := ReadFileMaybeGzip(bomb, 1<<20); !IsUnusable(err) || !errors.Is(err, ErrTooBig) {
		t.Errorf("bomb: %v", err)
	}
	if b, err := ReadFileMaybeGzip(bomb, 64<<20); err != nil || len(b) != 64<<20 {
		t.Errorf("exactly at the cap: %d bytes, %v", len(b), err)
	}
	cut := filepath.Join(dir, "cut.gz")
	os.WriteFile(cut, buf.Bytes()[:buf.Len()/2], 0o644)
	if _, err := ReadFileMaybeGzip(cut, 1<<30); !IsUnusable(err) {
		t.Errorf("cut: %v", err)
	}
	notgz := filepath.Join(dir, "not.gz")
	os.WriteFile(notgz, []byte("plain text"), 0o644)
	if _, err := ReadFileMaybeGzip(notgz, 1<<30); !IsUnusable(err) {
		t.Errorf("not gzip: %v", err)
	}
}
