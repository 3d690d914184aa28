package taskfile

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/evalstest"
)

// TestExamples loads every task file of examples/tasks and checks it
// against the Task contract (evals/evalstest).
func TestExamples(t *testing.T) {
	tasks, err := Load(filepath.Join("..", "..", "examples", "tasks"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 5 {
		t.Fatalf("%d example tasks, want 5", len(tasks))
	}
	for _, task := range tasks {
		t.Run(task.Info().Name, func(t *testing.T) {
			d, err := task.Load(context.Background(), evals.LoadConfig{NumFewshot: -1, Seed: 1234})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Samples) != 12 {
				t.Errorf("%d samples, want 12", len(d.Samples))
			}
			checkContract(t, task, evalstest.Options{DataDir: t.TempDir(), Samples: 12})
		})
	}
}

// checkContract runs the Task conformance suite, except its missing-data
// rule: a task file with a local dataset_path does not read the data
// directory, so an empty one does not make it fail.
func checkContract(t *testing.T, task evals.Task, opts evalstest.Options) {
	t.Helper()
	err := evalstest.Check(t.Context(), task, opts)
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), ": missing data: ") {
			t.Error(e)
		}
	}
}
