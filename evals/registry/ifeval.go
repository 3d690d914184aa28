package registry

import "github.com/pocketeval/pocketeval/evals"

// ifevalTasks returns the ifeval family's tasks.
func ifevalTasks() []evals.Task { return nil }
