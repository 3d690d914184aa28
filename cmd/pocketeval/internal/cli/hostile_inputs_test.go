package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileInputFilesExit2 (issue #49): every input file goes through
// one opening path — a named pipe or a device is refused before it is
// opened (never hanging), a file over its cap is refused after a stat, a
// gzip bomb is not inflated — and each such input exits 2 naming it.
func TestHostileInputFilesExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte("\n"), 300<<20)) // 300 MiB of blank lines: a 300 KB file
	zw.Close()
	line := []byte(`{"task":"alpha","id":"0","response":"1"}` + "\n")
	big := write("big.yaml", nil)
	if err := os.Truncate(big, 200<<20); err != nil { // a sparse 200 MB policy
		t.Fatal(err)
	}
	task := write("inc.yaml", []byte("include: "+fifo("inc-fifo.yaml")+"\ntask: inc\n"))
	suite := write("suite.yaml", []byte("name: s\ntasks:\n  - task: "+fifo("suite-task.yaml")+"\n"))
	run1 := filepath.Join(dir, "out")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"model FIFO", []string{"run", "--tasks", "alpha", "--runtime", "llamacpp", "--model", fifo("m.gguf"), "--out", run1}, "named pipe"},
		{"model device", []string{"run", "--tasks", "alpha", "--runtime", "llamacpp", "--model", "/dev/zero", "--out", run1}, "character device"},
		{"bench model FIFO", []string{"bench", "--runtime", "llamacpp", "--model", fifo("b.gguf")}, "named pipe"},
		{"task file FIFO", []string{"run", "--tasks", fifo("t.yaml"), "--runtime", "replay", "--predictions", write("p.jsonl", line), "--out", run1}, "named pipe"},
		{"include FIFO", []string{"run", "--tasks", task, "--runtime", "replay", "--predictions", write("p2.jsonl", line), "--out", run1}, "named pipe"},
		{"suite FIFO", []string{"run", "--suite", fifo("s.yaml"), "--runtime", "replay", "--predictions", write("p3.jsonl", line), "--out", run1}, "named pipe"},
		{"suite task FIFO", []string{"run", "--suite", suite, "--runtime", "replay", "--predictions", write("p4.jsonl", line), "--out", run1}, "named pipe"},
		{"samples FIFO", []string{"run", "--tasks", "alpha", "--runtime", "replay", "--predictions", write("p5.jsonl", line), "--samples", "@" + fifo("ids.txt"), "--out", run1}, "named pipe"},
		{"gate policy FIFO", []string{"gate", "--baseline", dir, "--candidate", dir, "--policy", fifo("g.yaml")}, "named pipe"},
		{"gate policy 200 MB", []string{"gate", "--baseline", dir, "--candidate", dir, "--policy", big}, "too big"},
		{"fidelity gate policy FIFO", []string{"fidelity", "gate", "--policy", fifo("fg.yaml"), "--ref-run", dir, "--cand-run", dir}, "named pipe"},
		{"models file FIFO", []string{"models", "list", "--models-file", fifo("models.json")}, "named pipe"},
		{"sandbox program FIFO", []string{"sandbox", "run", fifo("prog.py")}, "named pipe"},
		{"predictions gzip bomb", []string{"run", "--tasks", "alpha", "--runtime", "replay", "--predictions", write("bomb.jsonl.gz", bomb.Bytes()), "--out", run1}, "too big"},
		{"predictions corrupt gzip", []string{"run", "--tasks", "alpha", "--runtime", "replay", "--predictions", write("cut.jsonl.gz", bomb.Bytes()[:1000]), "--out", run1}, "corrupt gzip"},
		{"predictions empty", []string{"run", "--tasks", "alpha", "--runtime", "replay", "--predictions", write("empty.jsonl", nil), "--out", run1}, "no predictions"},
		{"predictions unknown ids", []string{"run", "--tasks", "alpha", "--runtime", "replay", "--predictions", write("unknown.jsonl", []byte(`{"task":"alpha","id":"nope","response":"1"}`+"\n")), "--out", run1}, "match no requested sample"},
		{"empty GGUF", []string{"run", "--tasks", "alpha", "--runtime", "llamacpp", "--model", write("empty.gguf", nil), "--out", run1}, "GGUF"},
	} {
		type result struct {
			code   int
			errOut string
		}
		done := make(chan result, 1)
		go func() {
			code, _, errOut := run(t, c.args...)
			done <- result{code, errOut}
		}()
		select {
		case r := <-done:
			if r.code != ExitUsage || !strings.Contains(r.errOut, c.want) {
				t.Errorf("%s: exit %d, want 2 and %q:\n%s", c.name, r.code, c.want, r.errOut)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: hangs", c.name)
		}
	}
}
