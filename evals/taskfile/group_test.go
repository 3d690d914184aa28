package taskfile

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
)

// groupTasks are small task files for group tests: a and b carry the tag
// t1 (b through its template), c the label `group: t1` (a tag for
// pocketeval), d none.
var groupTasks = map[string]string{
	"tasks/a.yaml":     "task: a\ntag: t1\ndataset_path: ../d.jsonl\ndoc_to_text: q\ndoc_to_target: a\n",
	"tasks/b.yaml":     "include: _tmpl_yaml\ntask: b\n",
	"tasks/_tmpl_yaml": "tag: [t1, t2]\ndataset_path: ../d.jsonl\ndoc_to_text: q\ndoc_to_target: a\n",
	"tasks/c.yaml":     "task: c\ngroup: t1\ndataset_path: ../d.jsonl\ndoc_to_text: q\ndoc_to_target: a\n",
	"tasks/d.yaml":     "task: d\ndataset_path: ../d.jsonl\ndoc_to_text: q\ndoc_to_target: a\nnum_fewshot: 1\n",
	"d.jsonl":          minimalData,
}

// writeGroup writes the group tasks and the group file (task.yaml) with
// the extra files, and returns the group file's path.
func writeGroup(t *testing.T, group string, extra map[string]string) string {
	t.Helper()
	files := map[string]string{"task.yaml": group}
	for k, v := range groupTasks {
		files[k] = v
	}
	for k, v := range extra {
		files[k] = v
	}
	return writeTask(t, files)
}

func builtinAlpha(name string) (evals.Task, bool) {
	if name == "alpha" {
		return alphaTask{}, true
	}
	return nil, false
}

// alphaTask stands for a built-in task.
type alphaTask struct{ evals.Task }

func (alphaTask) Info() evals.TaskInfo { return evals.TaskInfo{Name: "alpha"} }

func names(ts []evals.Task) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Info().Name)
	}
	return out
}

func TestLoadGroupExpands(t *testing.T) {
	t.Parallel()
	p := writeGroup(t, `group: top
group_alias: Top
task:
  - d
  - t1
  - group: inner
    task: [a, {task: d}, alpha]
    aggregate_metric_list: {metric: exact_match, filter_list: none}
  - sub
  - task: sub
aggregate_metric_list:
  - metric: exact_match
    weight_by_size: false
    aggregation: mean
metadata:
  version: 3
`, map[string]string{
		"tasks/sub.yaml": "group: sub\ntask:\n  - t2\n",
	})
	if ok, err := IsGroupFile(p); !ok || err != nil {
		t.Fatalf("IsGroupFile = %v, %v", ok, err)
	}
	if ok, _ := IsGroupFile(filepath.Join(filepath.Dir(p), "tasks", "c.yaml")); ok {
		t.Error("a task file with a group label is not a group file")
	}
	set, err := LoadGroup(p, builtinAlpha)
	if err != nil {
		t.Fatal(err)
	}
	// Tags expand in name order (lm-eval sorts them), each task once.
	if got := names(set.Tasks); !reflect.DeepEqual(got, []string{"d", "a", "b", "c", "alpha"}) {
		t.Errorf("tasks %v", got)
	}
	want := []results.Group{
		{Name: "top", Alias: "Top", Version: "3", Members: []string{"d", "a", "b", "c", "top::inner", "sub"},
			Aggregate: []results.GroupMetric{{Metric: "exact_match"}}},
		{Name: "top::inner", Members: []string{"a", "d", "alpha"},
			Aggregate: []results.GroupMetric{{Metric: "exact_match", Filters: []string{"none"}, WeightBySize: true}}},
		{Name: "sub", Members: []string{"b"}},
	}
	if !reflect.DeepEqual(set.Groups, want) {
		t.Errorf("groups\n%+v\nwant\n%+v", set.Groups, want)
	}
}

func TestLoadGroupOverrides(t *testing.T) {
	t.Parallel()
	// Group-level settings reach every task under the group; an entry's
	// own settings win over them; the file's num_fewshot is replaced.
	p := writeGroup(t, "group: g\nnum_fewshot: 3\ntask:\n  - a\n  - task: d\n    num_fewshot: 0\n", nil)
	set, err := LoadGroup(p, builtinAlpha)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, tk := range set.Tasks {
		got[tk.Info().Name] = taskOf(tk).cfg.NumFewshot
	}
	if !reflect.DeepEqual(got, map[string]int{"a": 3, "d": 0}) {
		t.Errorf("num_fewshot %v, want a 3 (the group's) and d 0 (its entry's)", got)
	}
}

func TestLoadGroupErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, group string
		extra       map[string]string
		line        int
		field, text string
		unsupported bool
	}{
		{"unknown member", "group: g\ntask:\n  - a\n  - nope\n", nil, 4, "task[1]", `unknown task or group "nope"`, false},
		{"inline task", "group: g\ntask:\n  - task: {dataset_path: x}\n", nil, 3, "task[0].task", "inline task definitions", true},
		{"built-in override", "group: g\ntask:\n  - task: alpha\n    num_fewshot: 2\n", nil, 4, "num_fewshot", "built-in task", true},
		{"aggregation", "group: g\ntask: [a]\naggregate_metric_list:\n  - metric: acc\n    aggregation: median\n", nil, 5, "aggregate_metric_list[0].aggregation", "only mean is", true},
		{"aggregate key", "group: g\ntask: [a]\naggregate_metric_list:\n  - metric: acc\n    higher_is_better: true\n", nil, 5, "aggregate_metric_list[0].higher_is_better", "unknown key", true},
		{"weight", "group: g\ntask: [a]\naggregate_metric_list:\n  - metric: acc\n    weight_by_size: maybe\n", nil, 5, "aggregate_metric_list[0].weight_by_size", "true or false", false},
		{"no metric", "group: g\ntask: [a]\naggregate_metric_list:\n  - weight_by_size: true\n", nil, 4, "aggregate_metric_list[0].metric", "missing", false},
		{"empty filters", "group: g\ntask: [a]\naggregate_metric_list:\n  - metric: acc\n    filter_list: []\n", nil, 5, "aggregate_metric_list[0].filter_list", "empty", false},
		{"cycle", "group: g\ntask: [loop]\n", map[string]string{"tasks/loop.yaml": "group: loop\ntask: [g2]\n", "tasks/g2.yaml": "group: g2\ntask: [loop]\n"}, 0, "task", "contains itself", false},
		{"two definitions", "group: g\ntask: [x]\n", map[string]string{"tasks/x1.yaml": "task: x\ndataset_path: ../d.jsonl\n", "tasks/x2.yaml": "task: x\ndataset_path: ../d.jsonl\n"}, 2, "task[0]", "more than one file", false},
		{"two settings", "group: g\ntask:\n  - d\n  - task: d\n    num_fewshot: 4\n", nil, 4, "task[1]", "different settings", false},
		{"task error", "group: g\ntask: [bad]\n", map[string]string{"tasks/bad.yaml": "task: bad\ndataset_path: ../d.jsonl\nprocess_docs: !function u.f\n"}, 3, "process_docs", "Python hook", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadGroup(writeGroup(t, c.group, c.extra), builtinAlpha)
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *taskfile.Error", err)
			}
			if fe.Line != c.line || !strings.HasPrefix(fe.Field, c.field) || !strings.Contains(fe.Error(), c.text) {
				t.Errorf("error %q (line %d, field %q), want line %d, field %q, text %q", fe, fe.Line, fe.Field, c.line, c.field, c.text)
			}
			if errors.Is(err, ErrUnsupported) != c.unsupported {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", !c.unsupported, c.unsupported)
			}
		})
	}
	if _, err := LoadGroup(filepath.Join("testdata", "lmeval", "tasks", "piqa", "piqa.yaml"), builtinAlpha); err == nil || !strings.Contains(err.Error(), "not a group file") {
		t.Errorf("a task file: %v", err)
	}
}

// TestLoadGroupRealFiles expands lm-eval's mmlu group: four category
// groups, each a tag of the subject files (their order is lm-eval's, see
// TestGroupsMatchLMEval), and a directory walk that skips the other
// files.
func TestLoadGroupRealFiles(t *testing.T) {
	t.Parallel()
	set, err := LoadGroup(filepath.Join("testdata", "lmeval", "tasks", "mmlu", "default", "_mmlu_stem.yaml"), builtinAlpha)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.Group{{Name: "mmlu_stem", Alias: "stem", Version: "2", Members: []string{"mmlu_anatomy", "mmlu_astronomy"},
		Aggregate: []results.GroupMetric{{Metric: "acc", WeightBySize: true}}}}
	if !reflect.DeepEqual(set.Groups, want) || !reflect.DeepEqual(names(set.Tasks), []string{"mmlu_anatomy", "mmlu_astronomy"}) {
		t.Errorf("groups %+v tasks %v", set.Groups, names(set.Tasks))
	}
	// The generation group's inline subgroup overrides mgsm's num_fewshot.
	set, err = LoadGroup(filepath.Join("testdata", "lmeval", "pocketeval_gen_group.yaml"), builtinAlpha)
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range set.Tasks {
		if c := taskOf(tk).cfg; c.Name == "mgsm_direct_zh" && c.NumFewshot != 2 {
			t.Errorf("mgsm_direct_zh num_fewshot %d, want the group's 2", c.NumFewshot)
		}
	}
}
