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

// TestDatasetFileSubjectFiles: --dataset-file takes one subject CSV or a
// directory of them in the benchmark's own columns, so outside
// predictions can be scored by the built-in task: ids are the built-in
// ones, prompts zero-shot, and asking for shots is an error. Issue 34.
func TestDatasetFileSubjectFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("abstract_algebra_test.csv", "1+1?,1,2,3,4,B\n2+2?,1,2,3,4,D\n")
	write("high_school_physics.csv", "question,A,B,C,D,answer\nv?,a,b,c,d,C\n")
	ctx := context.Background()
	for _, c := range []struct {
		path string
		ids  []string
	}{
		{one, []string{"abstract_algebra/0", "abstract_algebra/1"}},
		{dir, []string{"abstract_algebra/0", "abstract_algebra/1", "high_school_physics/0"}},
	} {
		task := MMLU()
		d, err := task.Load(ctx, evals.LoadConfig{DatasetFile: c.path, NumFewshot: -1})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		var ids []string
		for _, s := range d.Samples {
			ids = append(ids, s.ID)
		}
		if strings.Join(ids, " ") != strings.Join(c.ids, " ") {
			t.Errorf("%s: ids %v, want %v", c.path, ids, c.ids)
		}
		req, err := task.Prompt(d, d.Samples[0], evals.PromptConfig{NumFewshot: -1})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(req.Prompt, "Answer:") != 1 {
			t.Errorf("%s: prompt is not zero-shot:\n%s", c.path, req.Prompt)
		}
		if _, err := task.Load(ctx, evals.LoadConfig{DatasetFile: c.path, NumFewshot: 2}); err == nil || !strings.Contains(err.Error(), "no dev split") {
			t.Errorf("%s: 2-shot load: %v, want the no-dev-split error", c.path, err)
		}
	}
}
