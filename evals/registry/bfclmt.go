package registry

import (
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bfcl"
	"github.com/pocketeval/pocketeval/evals/bfclmt"
	"github.com/pocketeval/pocketeval/evals/code"
)

// toolTasks returns the tool-calling family: BFCL's single-turn
// categories, then its multi-turn ones, whose backends run in the
// sandbox (built at Setup by code.NewSandbox).
func toolTasks() []evals.Task {
	return append(bfcl.Tasks(), bfclmt.Tasks(bfclmt.Options{NewExecutor: code.NewSandbox})...)
}
