package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path     string
		flag     int
		noFollow bool
		kind     string // "" = opened
	}{
		{file, os.O_RDONLY, true, ""},
		{link, os.O_RDONLY, false, ""},
		{link, os.O_RDONLY, true, "a symbolic link"},
		{link, os.O_WRONLY, true, "a symbolic link"},
		{fifo, os.O_RDONLY, false, "a named pipe"},
		{fifo, os.O_WRONLY, false, "a named pipe"},
		{dir, os.O_RDONLY, false, "a directory"},
		{"/dev/zero", os.O_RDONLY, false, "a character device"},
	} {
		done := make(chan error, 1)
		go func() {
			f, err := Open(c.path, c.flag, 0, c.noFollow)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			var e *Error
			if c.kind == "" && err != nil || c.kind != "" && (!errors.As(err, &e) || e.Kind != c.kind) {
				t.Errorf("Open(%s, %d, noFollow=%v) = %v, want kind %q", filepath.Base(c.path), c.flag, c.noFollow, err, c.kind)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("Open(%s) hangs", c.path)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the link's target changed: %q", b)
	}
}
