package registry

import (
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/code"
)

// codeTasks returns the code family's tasks: humaneval, mbpp (sanitized)
// and mbpp_full. They run model-written code through the sandbox, built at
// Setup by code.NewSandbox.
func codeTasks() []evals.Task {
	opts := code.Options{NewExecutor: code.NewSandbox}
	return []evals.Task{code.HumanEval(opts), code.MBPP(opts), code.MBPPFull(opts)}
}
