package cli

import (
	"strings"
	"testing"

	mathtasks "github.com/pocketeval/pocketeval/evals/math"
	"github.com/pocketeval/pocketeval/evals/registry"
)

// TestEveryTaskHasADataset: the task → dataset join comes from the task
// registry, so every registered task has a dataset to download (and a
// download hint), every dataset is read by some task, and every file a
// task names is one the dataset registry fetches (the MGSM languages,
// listed as data in datasets/, are the tasks' languages).
func TestEveryTaskHasADataset(t *testing.T) {
	t.Parallel()
	files := map[string]bool{}
	for _, d := range datasetRegistry() {
		if len(d.Tasks) == 0 {
			t.Errorf("dataset %s is read by no task", d.Name)
		}
		for _, f := range d.Files {
			files[f.Path] = true
		}
	}
	for _, task := range registry.All() {
		info := task.Info()
		if _, ok := datasetForTask(info.Name); !ok {
			t.Errorf("task %s reads %v, which no dataset holds", info.Name, info.DatasetFiles)
		}
		if hint := missingDataHint(info.Name, "/data", "--data-dir"); !strings.Contains(hint, "pocketeval datasets download") {
			t.Errorf("task %s: no download hint (%q)", info.Name, hint)
		}
		if p := info.DatasetFiles[0]; strings.HasPrefix(p, "mgsm/") && !files[p] {
			t.Errorf("task %s: %s is not fetched by the registry", info.Name, p)
		}
	}
	for _, lang := range mathtasks.MGSMLanguages() {
		if p := "mgsm/mgsm_" + lang + ".tsv"; !files[p] {
			t.Errorf("MGSM language %s: %s is not fetched by the registry", lang, p)
		}
	}
	if _, err := lookupDatasets([]string{"mgsm_zh"}); err != nil {
		t.Error(err)
	}
	if _, err := lookupDatasets([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `unknown dataset or task "nope" (datasets: `) {
		t.Errorf("lookupDatasets(nope) = %v", err)
	}
}
