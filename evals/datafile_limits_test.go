package evals_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/ifeval"
	"github.com/pocketeval/pocketeval/evals/math"
)

// withGuard runs f and fails the test if it has not returned within a
// generous hang guard (the failures it guards against never return).
func withGuard(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		t.Fatal("still reading after 60 s: hangs")
		return nil
	}
}

// TestDataFileKinds: a dataset path that is a FIFO, a device or a symlink
// to one is refused at once as not a regular file, naming the path — a
// FIFO used to block the run forever, /dev/zero to read until memory ran
// out. Issue 21.
func TestDataFileKinds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.jsonl")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero} {
		err := withGuard(t, func() error { _, _, err := evals.ReadDataFile("gsm8k", path, "src"); return err })
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadDataFile(%s) = %v, want a refusal naming the path", path, err)
		}
	}
}

// TestLongLine: a line longer than evals.MaxLineBytes is an error naming
// the file and the line, from any loader — a 17 MiB line used to give
// bufio's "token too long" with neither. Issue 21.
func TestLongLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "long.jsonl")
	long := `{"prompt": "` + strings.Repeat("a", 17<<20) + `"}`
	if err := os.WriteFile(path, []byte("{}\n{}\r\n"+long+"\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := evals.ReadDataFile("t", path, "src")
	var de *evals.DataError
	if !errors.As(err, &de) || de.Path != path || de.Line != 3 {
		t.Fatalf("ReadDataFile = %v, want a *DataError at %s:3", err, path)
	}
	for _, task := range []evals.Task{math.GSM8K{}, ifeval.EN} {
		_, err := task.Load(context.Background(), evals.LoadConfig{DatasetFile: path})
		if err == nil || !strings.Contains(err.Error(), path+":3:") || strings.Contains(err.Error(), "too long") {
			t.Errorf("%s: Load = %v, want an error at %s:3", task.Info().Name, err, path)
		}
	}
	// The limit counts a line's bytes before its "\n", a "\r" included.
	for _, tt := range []struct {
		content string
		ok      bool
	}{
		{strings.Repeat("a", evals.MaxLineBytes-1) + "\r\n", true},
		{strings.Repeat("a", evals.MaxLineBytes), true},
		{"x\n" + strings.Repeat("a", evals.MaxLineBytes) + "\r\n", false},
		{strings.Repeat("a", evals.MaxLineBytes+1), false},
	} {
		p := filepath.Join(t.TempDir(), "edge.jsonl")
		if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := evals.ReadDataFile("t", p, "src"); (err == nil) != tt.ok {
			t.Errorf("%d bytes: err = %v, want ok=%v", len(tt.content), err, tt.ok)
		}
	}
}
