package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// TestSignalStopsRun (issue 36): SIGTERM stops a real run promptly with
// exit 130, leaving an interrupted, resumable directory that the same
// command completes; two signals in a row exit at once.
func TestSignalStopsRun(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	args := func(out string) []string {
		return []string{"run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k", "--limit", "20",
			"--max-tokens", "160", "--concurrency", "2", "--data-dir", data, "--out", out}
	}
	wait := func(cmd *exec.Cmd) int {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode()
			}
			if err != nil {
				t.Fatal(err)
			}
			return 0
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			t.Fatal("the run did not stop after the signal")
		}
		return -1
	}
	for _, signals := range []int{1, 2} {
		dir := filepath.Join(t.TempDir(), "run")
		cmd := selfCommand(args(dir)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); countLines(dir, "gsm8k") < 2 && time.Since(start) < time.Minute; {
			time.Sleep(5 * time.Millisecond)
		}
		for range signals {
			cmd.Process.Signal(syscall.SIGTERM)
			time.Sleep(20 * time.Millisecond)
		}
		if code := wait(cmd); code != ExitCancelled && code != 0 {
			t.Fatalf("%d signal(s): exit %d, want 130", signals, code)
		}
		if signals == 1 {
			m, err := results.ReadManifest(dir)
			if err != nil || (m.Status != results.StatusInterrupted && m.Status != results.StatusComplete) {
				t.Errorf("after SIGTERM the manifest is %+v (%v), want interrupted", m, err)
			}
		}
		resume := selfCommand(args(dir)...)
		resume.Stdout, resume.Stderr = os.Stderr, os.Stderr
		if err := resume.Start(); err != nil {
			t.Fatal(err)
		}
		if code := wait(resume); code != 0 {
			t.Fatalf("%d signal(s): the resume exits %d", signals, code)
		}
		if n := countLines(dir, "gsm8k"); n != 20 {
			t.Errorf("%d signal(s): %d sample lines after the resume, want 20", signals, n)
		}
	}
}
