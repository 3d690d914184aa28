package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileTask writes a task file whose prompt template is src, over a
// one-row dataset, and predictions for it.
func hostileTask(t *testing.T, dir, src string) (task, preds string) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "data.jsonl"), []byte(`{"q":"x","a":"y"}`+"\n"), 0o644)
	task = filepath.Join(dir, "bomb.yaml")
	os.WriteFile(task, []byte("task: bomb\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: data.jsonl\ntest_split: test\noutput_type: generate_until\ndoc_to_text: "+src+"\ndoc_to_target: \"{{a}}\"\nmetric_list:\n  - metric: exact_match\n"), 0o644)
	preds = filepath.Join(dir, "p.jsonl")
	os.WriteFile(preds, []byte(`{"task":"bomb","id":"0","response":"y"}`+"\n"), 0o644)
	return task, preds
}

// TestHostileTemplateChild (issue #49): pocketeval itself, run on a task
// file whose template builds gigabytes from aliased lists, refuses it
// (exit 2) with a peak resident set under 1 GB; one whose template is
// slow at every step stops on SIGTERM. Measured on the child process
// (rusage maxrss), not by wall clock.
func TestHostileTemplateChild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pocketeval as a child process on million-item lists")
	}
	t.Parallel()
	dir := t.TempDir()
	task, preds := hostileTask(t, dir, `'{% set a = [[1]*1000000]*1000 %}{{ a|join(",")|length }}'`)
	cmd := selfCommand("run", "--tasks", task, "--runtime", "replay", "--predictions", preds, "--out", filepath.Join(dir, "out"))
	out, _ := cmd.CombinedOutput()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	t.Logf("join bomb: exit %d, maxrss %d MiB: %s", cmd.ProcessState.ExitCode(), ru.Maxrss>>10, strings.TrimSpace(string(out)))
	if cmd.ProcessState.ExitCode() != ExitUsage || !strings.Contains(string(out), "template limit") {
		t.Errorf("join bomb: exit %d, want 2 and a template limit:\n%s", cmd.ProcessState.ExitCode(), out)
	}
	if ru.Maxrss > 1<<20 { // KiB
		t.Errorf("join bomb: peak RSS %d MiB", ru.Maxrss>>10)
	}

	slowDir := t.TempDir()
	task, preds = hostileTask(t, slowDir, `'{% set s = "y"*10000000 %}{% for i in range(100000) %}{% for j in range(9) %}{{ "x" in s }}{% endfor %}{% endfor %}'`)
	cmd = selfCommand("run", "--tasks", task, "--runtime", "replay", "--predictions", preds, "--out", filepath.Join(slowDir, "out"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // into the render (the signal is honoured at any point)
	cmd.Process.Signal(syscall.SIGTERM)
	sent := time.Now()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		t.Logf("slow template: exit %d %v after SIGTERM: %s", cmd.ProcessState.ExitCode(), time.Since(sent), stderr.String())
		if c := cmd.ProcessState.ExitCode(); c != ExitCancelled {
			t.Errorf("slow template: exit %d after SIGTERM", c)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("slow template: SIGTERM ignored for a minute")
	}
}
