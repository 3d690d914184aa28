package registry

import "github.com/pocketeval/pocketeval/evals"

// mathTasks returns the math family's tasks.
func mathTasks() []evals.Task { return nil }
