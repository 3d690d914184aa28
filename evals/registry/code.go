package registry

import "github.com/pocketeval/pocketeval/evals"

// codeTasks returns the code family's tasks.
func codeTasks() []evals.Task { return nil }
