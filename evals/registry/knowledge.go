package registry

import (
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/bbh"
	"github.com/pocketeval/pocketeval/evals/mc"
)

// knowledgeTasks returns the knowledge family's tasks: mmlu, ceval, cmmlu
// and arc_challenge (generative mode by default; WithMode("loglik")
// switches them) and bbh.
func knowledgeTasks() []evals.Task {
	return append(mc.Tasks(), bbh.New())
}
