package registry

import "github.com/pocketeval/pocketeval/evals"

// knowledgeTasks returns the knowledge family's tasks.
func knowledgeTasks() []evals.Task { return nil }
