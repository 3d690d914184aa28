package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockDir: one writer at a time. A second LockDir is refused with the
// holder's pid; after Unlock the directory can be locked again. (Two runs
// into one --out used to interleave their lines. Issue 21.)
func TestLockDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	l, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second LockDir: %v, want a *LockedError naming pid %d", err, os.Getpid())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Errorf("second Unlock: %v", err)
	}
	l2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir after Unlock: %v", err)
	}
	l2.Unlock()
}

// TestResultFilesNotFollowed: a samples file, summary or manifest that is a
// symbolic link, or a FIFO, is refused — reading does not follow it and a
// writer does not truncate its target (resume used to overwrite whatever
// samples/<task>.jsonl pointed to). Issue 21.
func TestResultFilesNotFollowed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(filepath.Join(run, SamplesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	link := SamplesPath(run, "gsm8k")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		var ne *NotRegularError
		if !errors.As(err, &ne) {
			t.Errorf("%s: err = %v, want a *NotRegularError", what, err)
		}
	}
	_, _, err := ReadSamples(link)
	check("ReadSamples of a symlink", err)
	_, err = OpenSampleWriter(link, 0)
	check("OpenSampleWriter of a symlink", err)
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was changed: %q", b)
	}
	for _, name := range []string{SummaryFile, ManifestFile} {
		if err := os.Symlink(victim, filepath.Join(run, name)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = ReadSummary(run)
	check("ReadSummary of a symlink", err)
	_, err = ReadManifest(run)
	check("ReadManifest of a symlink", err)

	fifo := SamplesPath(run, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 2)
	go func() { _, _, err := ReadSamples(fifo); done <- err }()
	go func() { _, err := OpenSampleWriter(fifo, 0); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			check("a FIFO", err)
		case <-time.After(60 * time.Second):
			t.Fatal("opening a FIFO hangs")
		}
	}

	// A samples directory that is a link sends every file elsewhere.
	run2 := filepath.Join(dir, "run2")
	if err := os.MkdirAll(run2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(run2, SamplesDir)); err != nil {
		t.Fatal(err)
	}
	_, err = OpenSampleWriter(SamplesPath(run2, "gsm8k"), 0)
	check("a samples directory that is a link", err)
	_, _, err = ReadSamples(SamplesPath(run2, "gsm8k"))
	check("reading through a linked samples directory", err)
}

// TestReadTaskSamples: records of another task and scores outside their
// metric's range are refused with file, line and field. Issue 21.
func TestReadTaskSamples(t *testing.T) {
	t.Parallel()
	good := rec("0", 0, "")
	other := rec("1", 0, "")
	other.Task = "ifeval"
	high, low := rec("2", 0, ""), rec("3", 0, "")
	high.Scores = map[string]float64{"acc": 5}
	low.Scores = map[string]float64{"acc": -3}
	brier := rec("4", 0, "")
	brier.Scores = map[string]float64{"brier_score": 1.5, "acc": 0}
	for _, c := range []struct {
		name  string
		lines []Record
		want  string
	}{
		{"good", []Record{good, brier}, ""},
		{"other task", []Record{good, other}, `task.jsonl:2: field "task": record of task "ifeval" in the samples of task`},
		{"score above range", []Record{high}, `task.jsonl:1: field "scores.acc": 5 is outside [0, 1]`},
		{"score below range", []Record{good, low}, `task.jsonl:2: field "scores.acc": -3 is outside [0, 1]`},
	} {
		var b strings.Builder
		for _, r := range c.lines {
			b.WriteString(line(t, r))
		}
		path := writeFile(t, b.String())
		recs, _, err := ReadTaskSamples(filepath.Dir(filepath.Dir(path)), "task")
		if c.want == "" {
			if err != nil || len(recs) != len(c.lines) {
				t.Errorf("%s: %d records, %v", c.name, len(recs), err)
			}
			continue
		}
		var se *SampleError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func TestConfigSelects(t *testing.T) {
	t.Parallel()
	r := func(id string, index, repeat int) *Record { return &Record{ID: id, Index: index, Repeat: repeat} }
	check := func(c Config, rec *Record, want bool) {
		t.Helper()
		if got := c.Selects("gsm8k", rec); got != want {
			t.Errorf("%+v selects %+v = %v, want %v", c, rec, got, want)
		}
	}
	check(Config{}, r("a", 100, 0), true)
	check(Config{}, r("a", 0, 1), false)
	check(Config{SamplesPerTask: 2}, r("a", 0, 1), true)
	check(Config{Limit: 10}, r("a", 9, 0), true)
	check(Config{Limit: 10}, r("a", 10, 0), false)
	sh := ShardOf("gsm8k", "a", 3)
	check(Config{Shard: Shard{Index: sh, Count: 3}}, r("a", 0, 0), true)
	check(Config{Shard: Shard{Index: (sh + 1) % 3, Count: 3}}, r("a", 0, 0), false)
}
