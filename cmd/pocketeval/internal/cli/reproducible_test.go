package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
)

// samplesBytes is a run's samples files with each line's timings (its
// last field, the only one that varies) cut off; everything else must be
// identical byte for byte between two runs of one command.
func samplesBytes(t *testing.T, dir string, tasks ...string) string {
	t.Helper()
	var b bytes.Buffer
	for _, task := range tasks {
		data, err := os.ReadFile(results.SamplesPath(dir, task))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if i := bytes.Index(line, []byte(`,"timings":`)); i >= 0 {
				line = append(line[:i:i], "}\n"...)
			}
			b.Write(line)
		}
	}
	return b.String()
}

func countLines(dir string, tasks ...string) int {
	n := 0
	for _, task := range tasks {
		b, _ := os.ReadFile(results.SamplesPath(dir, task))
		n += bytes.Count(b, []byte("\n"))
	}
	return n
}

// TestReproducibleByDefault (issue 35): with the default settings two
// clean runs of one command on the story model, a run with the prefix
// cache off, and runs killed with SIGKILL at several points and resumed
// give byte-identical samples (timings aside), at concurrency 2, and the
// manifest says the responses are exact.
func TestReproducibleByDefault(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	data := sharedtest.Datasets(t)
	tasks := []string{"gsm8k", "ifeval"}
	args := func(out string, extra ...string) []string {
		return append([]string{"run", "--runtime", "llamacpp", "--model", model, "--tasks", "gsm8k,ifeval", "--limit", "8",
			"--max-tokens", "32", "--concurrency", "2", "--threads", "1", "--data-dir", data, "--out", out}, extra...)
	}
	run := func(out string, extra ...string) string {
		t.Helper()
		if code, stdout, stderr := runReal(t, args(out, extra...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", extra, code, stdout, stderr)
		}
		return samplesBytes(t, out, tasks...)
	}
	base := t.TempDir()
	want := run(filepath.Join(base, "a"))
	if got := run(filepath.Join(base, "b")); got != want {
		t.Errorf("two clean runs differ:\n%s\n---\n%s", want, got)
	}
	if got := run(filepath.Join(base, "nocache"), "--prefix-cache", "off"); got != want {
		t.Errorf("--prefix-cache off differs from the default:\n%s\n---\n%s", want, got)
	}
	m, err := results.ReadManifest(filepath.Join(base, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Reproducible == nil || !m.Reproducible.Exact {
		t.Errorf("manifest reproducible = %+v, want exact", m.Reproducible)
	}
	points := []int{1, 7, 13}
	if testing.Short() {
		points = points[1:2]
	}
	for _, at := range points {
		dir := filepath.Join(base, "killed", time.Now().Format("150405.000000"))
		cmd := selfCommand(args(dir)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		finished := false
	wait:
		for countLines(dir, tasks...) < at {
			select {
			case <-done:
				finished = true
				break wait
			case <-time.After(2 * time.Millisecond):
			}
		}
		if !finished {
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
		} else {
			t.Logf("kill after %d lines: the run finished first", at)
		}
		if got := run(dir); got != want {
			t.Errorf("killed after %d lines and resumed: samples differ from a clean run:\n%s\n---\n%s", at, want, got)
		}
	}
}
