package registry

import (
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/ifeval"
)

// ifevalTasks returns the ifeval family's tasks: ifeval and ifeval_zh.
func ifevalTasks() []evals.Task { return []evals.Task{ifeval.EN, ifeval.ZH} }
