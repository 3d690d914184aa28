package taskfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/results"
)

// Set is what a group file expands to: its tasks, in the order the group
// lists them (nested groups and tags expanded, each task once), and its
// groups, the file's own first and then its subgroups, each before its
// own subgroups.
type Set struct {
	Tasks  []evals.Task
	Groups []results.Group
}

// groupFields are the keys of a group file that describe the group (as
// lm-eval's GroupConfig); any other key is a setting its tasks get.
var groupFields = map[string]bool{"group": true, "group_alias": true, "task": true, "aggregate_metric_list": true, "metadata": true}

// IsGroupFile reports whether path is an lm-eval group file: a `group`
// key and a `task` list (its includes counted). A task file that labels
// its task with `group: name` is a task file.
func IsGroupFile(path string) (bool, error) {
	keys, err := peekKeys(path, 0)
	if err != nil {
		return false, err
	}
	return isGroup(keys), nil
}

func isGroup(keys map[string]*yaml.Node) bool {
	g, t := keys["group"], keys["task"]
	return g != nil && g.Kind == yaml.ScalarNode && t != nil && t.Kind == yaml.SequenceNode
}

// LoadGroup expands the group file at path as lm-eval builds a group
// (lm_eval/tasks/_factory.py). Each entry of its `task` list is
//
//   - a name: a task file, a group file or a tag (the tasks that carry it
//     in `tag`, or in a task file's `group` label, in name order) among
//     the YAML files in the group file's directory and below, else a
//     built-in task (builtin);
//   - a mapping with `task: name` and settings that override the task's
//     (or, for a group, every task under it);
//   - a mapping with `group: name`: that group with overrides, or a group
//     defined inline (named "<parent>::<name>").
//
// Keys of the group file other than group, group_alias, task,
// aggregate_metric_list and metadata are settings for all its tasks, as
// in lm-eval. aggregate_metric_list takes metric, filter_list,
// weight_by_size (default true) and aggregation (mean only). Inline task
// definitions, overrides of built-in tasks and anything unknown are
// refused with the file, line and key named.
func LoadGroup(path string, builtin func(name string) (evals.Task, bool)) (*Set, error) {
	raw, err := readYAML(path, map[string]bool{})
	if err != nil {
		return nil, err
	}
	g, t := raw["group"], raw["task"]
	if g.node == nil || g.node.Kind != yaml.ScalarNode || t.node == nil || t.node.Kind != yaml.SequenceNode {
		return nil, &Error{File: path, Field: "group", Err: errors.New("not a group file: a group file names its group (`group`) and lists its tasks (`task`)")}
	}
	idx, err := buildIndex(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	b := &groupBuilder{idx: idx, builtin: builtin, tasks: map[string]builtTask{}, groups: map[string]string{}}
	if _, err := b.group(g.node.Value, path, raw, nil); err != nil {
		return nil, err
	}
	set := &Set{}
	for _, name := range b.taskOrder {
		set.Tasks = append(set.Tasks, b.tasks[name].task)
	}
	set.Groups = preorder(b.built, g.node.Value)
	return set, nil
}

// preorder orders the built groups from root: each group, then its
// subgroups in member order.
func preorder(built []results.Group, root string) []results.Group {
	byName := map[string]results.Group{}
	for _, g := range built {
		byName[g.Name] = g
	}
	var out []results.Group
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		g, ok := byName[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, g)
		for _, m := range g.Members {
			visit(m)
		}
	}
	visit(root)
	return out
}

// groupBuilder builds a group and everything under it.
type groupBuilder struct {
	idx     *index
	builtin func(string) (evals.Task, bool)
	// tasks by name, in first-use order, with the settings they were
	// built with; groups maps a built group to the signature of its
	// overrides.
	tasks     map[string]builtTask
	taskOrder []string
	groups    map[string]string
	built     []results.Group
	stack     []string // groups being built, for cycles
}

type builtTask struct {
	task evals.Task
	sig  string // the overrides it was built with
}

// group builds the group name defined by raw (a file's keys, or an inline
// mapping) with overrides from its parents, and returns its name.
func (b *groupBuilder) group(name, file string, raw map[string]value, overrides map[string]value) (string, error) {
	if slices.Contains(b.stack, name) {
		return "", &Error{File: file, Field: "task", Err: fmt.Errorf("group %s contains itself (%s)", name, strings.Join(append(b.stack, name), " → "))}
	}
	sig := signature(overrides)
	if prev, ok := b.groups[name]; ok {
		if prev != sig {
			return "", &Error{File: file, Field: "task", Err: fmt.Errorf("group %s is used twice with different settings", name)}
		}
		return name, nil
	}
	b.stack = append(b.stack, name)
	defer func() { b.stack = b.stack[:len(b.stack)-1] }()
	g := results.Group{Name: name}
	inherited := map[string]value{}
	for k, v := range raw {
		if !groupFields[k] {
			inherited[k] = v
		}
	}
	for k, v := range overrides {
		inherited[k] = v
	}
	if v, ok := raw["group_alias"]; ok {
		if v.node.Kind != yaml.ScalarNode {
			return "", v.errorf("group_alias", "want a string")
		}
		g.Alias = v.node.Value
	}
	if v, ok := raw["metadata"]; ok {
		if v.node.Kind != yaml.MappingNode {
			return "", v.errorf("metadata", "want a mapping")
		}
		for i := 0; i+1 < len(v.node.Content); i += 2 {
			if v.node.Content[i].Value == "version" {
				g.Version = pyvalue.Str(scalarValue(v.node.Content[i+1]))
			}
		}
	}
	if v, ok := raw["aggregate_metric_list"]; ok {
		var err error
		if g.Aggregate, err = decodeAggregates(v); err != nil {
			return "", err
		}
	}
	list := raw["task"]
	if list.node == nil || list.node.Kind != yaml.SequenceNode {
		return "", &Error{File: file, Field: "task", Err: fmt.Errorf("group %s: want a list of tasks", name)}
	}
	for i, item := range list.node.Content {
		field := fmt.Sprintf("task[%d]", i)
		iv := value{node: item, file: list.file}
		members, err := b.member(name, field, iv, inherited)
		if err != nil {
			return "", err
		}
		for _, m := range members {
			if !slices.Contains(g.Members, m) {
				g.Members = append(g.Members, m)
			}
		}
	}
	b.groups[name] = sig
	b.built = append(b.built, g)
	return name, nil
}

// member resolves one entry of a group's task list to the names of the
// members it adds.
func (b *groupBuilder) member(parent, field string, item value, overrides map[string]value) ([]string, error) {
	switch item.node.Kind {
	case yaml.ScalarNode:
		return b.named(item.node.Value, field, item, overrides)
	case yaml.MappingNode:
	default:
		return nil, item.errorf(field, "want a task or group name, or a mapping with `task` or `group`")
	}
	keys := map[string]value{}
	for i := 0; i+1 < len(item.node.Content); i += 2 {
		keys[item.node.Content[i].Value] = value{node: item.node.Content[i+1], file: item.file}
	}
	merged := map[string]value{}
	for k, v := range overrides {
		merged[k] = v
	}
	if g, ok := keys["group"]; ok {
		if g.node.Kind != yaml.ScalarNode {
			return nil, g.errorf(field+".group", "want a group name")
		}
		if files := b.idx.groups[g.node.Value]; len(files) > 0 {
			for k, v := range keys {
				if k != "group" {
					merged[k] = v
				}
			}
			name, err := b.groupFile(g.node.Value, field, item, merged)
			return []string{name}, err
		}
		// An inline group, named under its parent as lm-eval names it.
		name, err := b.group(parent+"::"+g.node.Value, item.file, keys, overrides)
		return []string{name}, err
	}
	t, ok := keys["task"]
	if !ok {
		return nil, item.errorf(field, "a mapping in a group's task list needs `task` or `group`")
	}
	if t.node.Kind != yaml.ScalarNode {
		return nil, t.errorf(field+".task", "want a task name (inline task definitions are %w: put the task in its own file)", ErrUnsupported)
	}
	for k, v := range keys {
		if k != "task" {
			merged[k] = v
		}
	}
	return b.named(t.node.Value, field, item, merged)
}

// named resolves a name: a group file, a task file or a tag of the
// index, else a built-in task.
func (b *groupBuilder) named(name, field string, at value, overrides map[string]value) ([]string, error) {
	switch {
	case len(b.idx.groups[name]) > 0:
		g, err := b.groupFile(name, field, at, overrides)
		return []string{g}, err
	case len(b.idx.tasks[name]) > 0:
		return []string{name}, b.taskFile(name, field, at, overrides)
	case len(b.idx.tags[name]) > 0:
		tasks := slices.Clone(b.idx.tags[name])
		sort.Strings(tasks)
		for _, t := range tasks {
			if err := b.taskFile(t, field, at, overrides); err != nil {
				return nil, err
			}
		}
		return tasks, nil
	}
	t, ok := b.builtin(name)
	if !ok {
		return nil, at.errorf(field, "unknown task or group %q (looked in the YAML files under %s and the built-in tasks)", name, b.idx.dir)
	}
	for _, k := range sortedValueKeys(overrides) {
		v := overrides[k]
		return nil, v.errorf(k, "%s is a built-in task: its settings cannot be overridden from a group file: %w", name, ErrUnsupported)
	}
	return []string{name}, b.add(name, builtTask{task: t}, field, at)
}

// groupFile builds the group defined in the index under name.
func (b *groupBuilder) groupFile(name, field string, at value, overrides map[string]value) (string, error) {
	file, err := b.idx.only(b.idx.groups, name, "group", field, at)
	if err != nil {
		return "", err
	}
	raw, err := readYAML(file, map[string]bool{})
	if err != nil {
		return "", err
	}
	return b.group(name, file, raw, overrides)
}

// taskFile builds the task file defined in the index under name, with
// overrides.
func (b *groupBuilder) taskFile(name, field string, at value, overrides map[string]value) error {
	file, err := b.idx.only(b.idx.tasks, name, "task", field, at)
	if err != nil {
		return err
	}
	sig := signature(overrides)
	if prev, ok := b.tasks[name]; ok && prev.sig == sig {
		return nil
	}
	raw, err := readYAML(file, map[string]bool{})
	if err != nil {
		return err
	}
	for k, v := range overrides {
		raw[k] = v
	}
	cfg, err := decodeConfig(file, raw, jinja.DefaultLimits)
	if err != nil {
		return err
	}
	return b.add(name, builtTask{task: taskOfConfig(cfg), sig: sig}, field, at)
}

// add records a task, refusing one name built with two settings.
func (b *groupBuilder) add(name string, t builtTask, field string, at value) error {
	if prev, ok := b.tasks[name]; ok {
		if prev.sig != t.sig {
			return at.errorf(field, "task %s is used twice with different settings", name)
		}
		return nil
	}
	b.tasks[name] = t
	b.taskOrder = append(b.taskOrder, name)
	return nil
}

// signature identifies a set of overrides.
func signature(overrides map[string]value) string {
	var b strings.Builder
	for _, k := range sortedValueKeys(overrides) {
		out, _ := yaml.Marshal(overrides[k].node)
		fmt.Fprintf(&b, "%s=%s\x00", k, out)
	}
	return b.String()
}

func sortedValueKeys(m map[string]value) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// decodeAggregates reads aggregate_metric_list: a mapping or a list of
// them, as lm-eval's AggMetricConfig.
func decodeAggregates(v value) ([]results.GroupMetric, error) {
	items := []*yaml.Node{v.node}
	if v.node.Kind == yaml.SequenceNode {
		items = v.node.Content
	}
	var out []results.GroupMetric
	for i, n := range items {
		field := fmt.Sprintf("aggregate_metric_list[%d]", i)
		at := value{node: n, file: v.file}
		if n.Kind != yaml.MappingNode {
			return nil, at.errorf(field, "want a mapping with metric, filter_list, aggregation and weight_by_size")
		}
		m := results.GroupMetric{WeightBySize: true}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, kv := n.Content[j].Value, value{node: n.Content[j+1], file: v.file}
			f := field + "." + k
			switch k {
			case "metric":
				if !isString(kv.node) || kv.node.Value == "" {
					return nil, kv.errorf(f, "want a metric name")
				}
				m.Metric = kv.node.Value
			case "aggregation":
				if kv.node.Kind != yaml.ScalarNode || kv.node.Value != "mean" {
					return nil, kv.errorf(f, "%q: %w; only mean is (lm-eval has no other built-in group aggregation)", kv.node.Value, ErrUnsupported)
				}
			case "weight_by_size":
				x := scalarValue(kv.node)
				if kv.node.Kind != yaml.ScalarNode || !x.IsBool() {
					return nil, kv.errorf(f, "want true or false")
				}
				m.WeightBySize = x.AsBool()
			case "filter_list":
				fs, err := stringList(kv, f)
				if err != nil {
					return nil, err
				}
				if len(fs) == 0 {
					return nil, kv.errorf(f, "empty: name the filters, or leave the key out to aggregate every filter")
				}
				m.Filters = fs
			default:
				return nil, kv.errorf(f, "unknown key (want metric, filter_list, aggregation, weight_by_size): %w", ErrUnsupported)
			}
		}
		if m.Metric == "" {
			return nil, at.errorf(field+".metric", "missing")
		}
		out = append(out, m)
	}
	return out, nil
}

// index maps the names defined by the YAML files under a directory to
// their files, as lm-eval's TaskIndex does for its task directories.
type index struct {
	dir    string
	tasks  map[string][]string // task name → files
	groups map[string][]string // group name → files
	tags   map[string][]string // tag → task names
}

// only returns the one file that defines name, refusing a name two files
// define.
func (x *index) only(m map[string][]string, name, kind, field string, at value) (string, error) {
	files := m[name]
	if len(files) > 1 {
		return "", at.errorf(field, "%s %s is defined by more than one file: %s", kind, name, strings.Join(files, ", "))
	}
	return files[0], nil
}

// buildIndex reads the task, group and tag names of every YAML file under
// dir (*.yaml and *.yml, with their includes). Files that cannot be read
// as task or group files are left out, as lm-eval's index leaves them;
// they fail when a group uses them.
func buildIndex(dir string) (*index, error) {
	x := &index{dir: dir, tasks: map[string][]string{}, groups: map[string][]string{}, tags: map[string][]string{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return nil
		}
		keys, err := peekKeys(p, 0)
		if err != nil {
			return nil
		}
		if isGroup(keys) {
			name := keys["group"].Value
			x.groups[name] = append(x.groups[name], p)
			return nil
		}
		t := keys["task"]
		if t == nil || t.Kind != yaml.ScalarNode {
			return nil
		}
		x.tasks[t.Value] = append(x.tasks[t.Value], p)
		for _, key := range []string{"tag", "group"} {
			n := keys[key]
			if n == nil {
				continue
			}
			labels, err := stringList(value{node: n, file: p}, key)
			if err != nil {
				continue
			}
			for _, l := range labels {
				if !slices.Contains(x.tags[l], t.Value) {
					x.tags[l] = append(x.tags[l], t.Value)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index task files under %s: %w", dir, err)
	}
	return x, nil
}

// peekKeys returns the top-level keys of a YAML file with its includes
// (the file's own keys win), without checking them.
func peekKeys(path string, depth int) (map[string]*yaml.Node, error) {
	if depth > 16 {
		return nil, &Error{File: path, Field: "include", Err: errors.New("includes nested too deeply (a cycle?)")}
	}
	root, err := readRoot(path)
	if err != nil {
		return nil, err
	}
	out := map[string]*yaml.Node{}
	if root == nil {
		return out, nil
	}
	own := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		own[root.Content[i].Value] = root.Content[i+1]
	}
	if inc := own["include"]; inc != nil {
		var names []string
		switch inc.Kind {
		case yaml.ScalarNode:
			names = []string{inc.Value}
		case yaml.SequenceNode:
			for _, n := range inc.Content {
				names = append(names, n.Value)
			}
		}
		for _, name := range names {
			p := name
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), name)
			}
			sub, err := peekKeys(p, depth+1)
			if err != nil {
				return nil, err
			}
			for k, v := range sub {
				out[k] = v
			}
		}
	}
	for k, v := range own {
		out[k] = v
	}
	return out, nil
}
