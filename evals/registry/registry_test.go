package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals/evalstest"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/sandbox"
)

// TestMain lets this test binary act as the sandbox's set-up helper, so
// the code tasks' Setup works.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// TestEveryTaskConforms runs the Task conformance suite over every
// registered task against the shared datasets. A task whose data is not
// there (the optional MGSM languages) is checked without data and
// skipped.
func TestEveryTaskConforms(t *testing.T) {
	data := sharedtest.Datasets(t)
	samples := 6
	if testing.Short() {
		samples = 2
	}
	for _, task := range All() {
		t.Run(task.Info().Name, func(t *testing.T) {
			evalstest.Test(t, task, evalstest.Options{DataDir: data, Samples: samples})
		})
	}
}

func TestNamesAreUniqueAndSorted(t *testing.T) {
	t.Parallel()
	all := All()
	for i := 1; i < len(all); i++ {
		if a, b := all[i-1].Info().Name, all[i].Info().Name; a >= b {
			t.Errorf("tasks %q and %q are not sorted and unique", a, b)
		}
	}
}

func TestFamiliesGroupByCapability(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, f := range Families() {
		for _, task := range f.Tasks {
			got[task.Info().Name] = f.Capability
		}
	}
	for task, want := range map[string]string{
		"ifeval": "instruction following", "ifeval_zh": "instruction following",
		"gsm8k": "math", "mgsm_zh": "math", "math500": "math",
		"humaneval": "code", "mbpp": "code",
		"mmlu": "knowledge", "ceval": "knowledge", "bbh": "knowledge",
	} {
		if got[task] != want {
			t.Errorf("%s: capability %q, want %q", task, got[task], want)
		}
	}
	if len(got) != len(All()) {
		t.Errorf("families hold %d tasks, All %d", len(got), len(All()))
	}
}

// TestSelectGroupFile: a group file selects the tasks under it and its
// groups; its members resolve to task files next to it and to built-in
// tasks; Lookup keeps the tasks.
func TestSelectGroupFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stem := filepath.Join("..", "taskfile", "testdata", "lmeval", "tasks", "mmlu", "default", "_mmlu_stem.yaml")
	group := filepath.Join(dir, "g.yaml")
	os.WriteFile(group, []byte("group: mixed\ntask: [gsm8k, ifeval]\naggregate_metric_list: {metric: exact_match}\n"), 0o644)
	sel, err := Select(All(), []string{stem, group, "mbpp"})
	if err != nil {
		t.Fatal(err)
	}
	var names, groups []string
	for _, t := range sel.Tasks {
		names = append(names, t.Info().Name)
	}
	for _, g := range sel.Groups {
		groups = append(groups, g.Name)
	}
	if strings.Join(names, " ") != "mmlu_anatomy mmlu_astronomy gsm8k ifeval mbpp" || strings.Join(groups, " ") != "mmlu_stem mixed" {
		t.Errorf("tasks %v groups %v", names, groups)
	}
	if ts, err := Lookup(All(), []string{stem}); err != nil || len(ts) != 2 {
		t.Errorf("Lookup: %d tasks, %v", len(ts), err)
	}
	// A task of the group named again runs once.
	if sel, err := Select(All(), []string{group, "gsm8k"}); err != nil || len(sel.Tasks) != 2 {
		t.Errorf("a task in a group and given again: %v", err)
	}
}
