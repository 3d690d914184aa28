package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pocketeval/pocketeval/datasets"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
)

// The join of tasks and datasets: the dataset registry knows only
// datasets and the tasks only their files, so the commands, which know
// both, say which tasks read which dataset.

// datasetOf names the dataset a task reads: the directory of its primary
// file under the data directory ("mgsm" for "mgsm/mgsm_zh.tsv").
func datasetOf(info evals.TaskInfo) string {
	if len(info.DatasetFiles) == 0 {
		return ""
	}
	dir, _, _ := strings.Cut(info.DatasetFiles[0], "/")
	return dir
}

// datasetRegistry is every known dataset, each with its Tasks: the
// registered tasks (evals/registry) whose primary file lies in its
// directory, so a new task needs no entry in the dataset registry.
func datasetRegistry() []datasets.Dataset {
	tasks := map[string][]string{}
	for _, t := range registry.All() {
		info := t.Info()
		tasks[datasetOf(info)] = append(tasks[datasetOf(info)], info.Name)
	}
	reg := datasets.Registry()
	for i := range reg {
		reg[i].Tasks = tasks[reg[i].Name]
	}
	return reg
}

// lookupDatasets resolves dataset or task names (none: all datasets); an
// unknown name is a usage error.
func lookupDatasets(names []string) ([]datasets.Dataset, error) {
	ds, err := datasets.Lookup(datasetRegistry(), names)
	var ue *datasets.UnknownError
	if errors.As(err, &ue) {
		err = fmt.Errorf("unknown dataset or task %q (datasets: %s)", ue.Name, strings.Join(ue.Known, ", "))
	}
	if err != nil {
		return nil, &FlagError{err: err}
	}
	return ds, nil
}

// datasetForTask returns the dataset a task reads, if registered.
func datasetForTask(task string) (datasets.Dataset, bool) {
	for _, d := range datasetRegistry() {
		if slices.Contains(d.Tasks, task) {
			return d, true
		}
	}
	return datasets.Dataset{}, false
}

// missingDataHint says how to make a task's missing data available:
// point pocketeval at the data where it already is, or fetch it. dataDir
// is where pocketeval looked and source where that came from
// ("--data-dir", "$POCKETEVAL_DATA" or "default").
func missingDataHint(task, dataDir, source string) string {
	where := "the data directory " + dataDir
	switch source {
	case "default":
		where = "the default data directory " + dataDir + " (neither --data-dir nor $POCKETEVAL_DATA is set)"
	case "--data-dir", "$POCKETEVAL_DATA":
		where = dataDir + " (from " + source + ")"
	}
	if _, ok := datasetForTask(task); !ok {
		return fmt.Sprintf("fix: pocketeval looked in %s; point --data-dir (or $POCKETEVAL_DATA) at the directory the task's data paths are relative to", where)
	}
	return fmt.Sprintf("fix: pocketeval looked in %s.\n"+
		"     If the data is elsewhere, point pocketeval at it: --data-dir DIR or export POCKETEVAL_DATA=DIR.\n"+
		"     Otherwise fetch it from its official source (needs network; --mirror URL fetches from an internal mirror):\n"+
		"       pocketeval datasets download %s --data-dir %s", where, task, dataDir)
}
