package registry

import (
	"github.com/pocketeval/pocketeval/evals"
	mathtasks "github.com/pocketeval/pocketeval/evals/math"
)

// mathTasks returns the math family's tasks: gsm8k, math500 and one
// mgsm_<lang> per MGSM language.
func mathTasks() []evals.Task {
	tasks := []evals.Task{mathtasks.GSM8K{}, mathtasks.MATH500{}}
	for _, lang := range mathtasks.MGSMLanguages() {
		tasks = append(tasks, mathtasks.MGSM{Lang: lang})
	}
	return tasks
}
