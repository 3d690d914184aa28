package mc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
)

// TestSubjectFileNotRegular: a subject file of a dataset directory that is
// a FIFO or a link to /dev/zero is refused at once, naming it, as every
// dataset file is (evals.ReadDataFile); it used to hang the load. Issue 21.
func TestSubjectFileNotRegular(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"fifo", "zero"} {
		root := t.TempDir()
		test := filepath.Join(root, "test")
		if err := os.MkdirAll(test, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(test, "algebra_test.csv"), []byte("1+1?,1,2,3,4,B\n"), 0o644)
		bad := filepath.Join(test, "bad_test.csv")
		var err error
		if kind == "fifo" {
			err = syscall.Mkfifo(bad, 0o644)
		} else {
			err = os.Symlink("/dev/zero", bad)
		}
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { _, err := MMLU().Load(context.Background(), evals.LoadConfig{DatasetFile: root}); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: Load = %v, want a refusal naming %s", kind, err, bad)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: Load hangs", kind)
		}
	}
}
