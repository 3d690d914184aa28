// Package suite defines named sets of tasks (suites) with the numbers a
// model's authors published for them. It is plain data, below both the
// runner and the reports, and knows no task: the scores and the suite
// average of a run are computed by rundir.SuiteAverage, the one
// implementation `suite`, `gate`, `leaderboard` and `run --suite` use.
//
// Suites are embedded YAML files in suites/ (see pocket11.yaml), or a suite
// file given by path, whose tasks may be task files (paths relative to the
// suite file; see evals/taskfile): the caller names them (TaskFileNamer).
package suite

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/internal/yamlwalk"
)

//go:embed suites/*.yaml
var files embed.FS

// Suite is a named list of tasks.
type Suite struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	Model       string `yaml:"model" json:"model,omitempty"`
	// ReportedAverage is the published suite average (×100), if any.
	ReportedAverage *float64 `yaml:"reported_average" json:"reported_average,omitempty"`
	ReportedSource  string   `yaml:"reported_source" json:"reported_source,omitempty"`
	Tasks           []Entry  `yaml:"tasks" json:"tasks"`
	// File is the suite file ("pocket11.yaml" for an embedded suite), and
	// lines the line of each top-level field in it, for errors.
	File  string         `yaml:"-" json:"-"`
	lines map[string]int `yaml:"-"`
}

// Entry is one task of a suite.
type Entry struct {
	Task string `yaml:"task" json:"task"`
	// Metric overrides the task's headline metric ("" = the headline:
	// the number the benchmark publishes, see results.TaskSummary.Headline).
	Metric string `yaml:"metric" json:"metric,omitempty"`
	// Reported is the published score ×100, if known.
	Reported *float64 `yaml:"reported" json:"reported,omitempty"`
	Note     string   `yaml:"note" json:"note,omitempty"`
	// Assumed marks a member whose place in the suite is assumed, not
	// published (the suite's authors did not list it): the reported
	// average may be over other benchmarks.
	Assumed bool `yaml:"assumed" json:"assumed,omitempty"`
	// File is the task file of an entry that names one (then Task is the
	// file's task name).
	File string `yaml:"-" json:"file,omitempty"`
	// Line is the entry's line in the suite file, for errors.
	Line int `yaml:"-" json:"-"`
}

// UnmarshalYAML decodes an entry and remembers its line.
func (e *Entry) UnmarshalYAML(n *yaml.Node) error {
	type plain Entry
	var p plain
	if err := decodeKnown(n, &p); err != nil {
		return err
	}
	*e = Entry(p)
	e.Line = n.Line
	return nil
}

// decodeKnown decodes n into v (a pointer to a struct), refusing fields v
// does not have: yaml.v3's KnownFields does not reach into a custom
// unmarshaler.
func decodeKnown(n *yaml.Node, v any) error {
	t := reflect.TypeOf(v).Elem()
	known := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			known[name] = true
		}
	}
	if k := yamlwalk.Unknown(n, func(key string) bool { return known[key] }); k != nil {
		return fmt.Errorf("line %d: field %s not found in a task entry", k.Line, k.Value)
	}
	return n.Decode(v)
}

// Assumed lists the members whose place in the suite is assumed.
func (s *Suite) Assumed() []string {
	var out []string
	for _, e := range s.Tasks {
		if e.Assumed {
			out = append(out, e.Task)
		}
	}
	return out
}

// TaskNames returns what selects the suite's tasks, in order: task names,
// and the paths of task files.
func (s *Suite) TaskNames() []string {
	out := make([]string, len(s.Tasks))
	for i, e := range s.Tasks {
		out[i] = e.Task
		if e.File != "" {
			out[i] = e.File
		}
	}
	return out
}

// Names lists the embedded suites.
func Names() []string {
	entries, _ := fs.ReadDir(files, "suites")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// TaskFileNamer returns the name of the task a task file defines (the
// suite package reads no task file itself: tasks live above it).
type TaskFileNamer func(path string) (task string, err error)

// Get returns the embedded suite called name, or reads the suite file name
// when it is a path (ends in .yaml or .yml, or contains a slash); taskFile
// names the entries of a suite file that are task files (nil: such an
// entry is an error).
func Get(name string, taskFile TaskFileNamer) (*Suite, error) {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, '/') {
		return readFile(name, taskFile)
	}
	data, err := files.ReadFile(path.Join("suites", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("unknown suite %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return Parse(name+".yaml", data)
}

// Parse reads a suite definition. Errors name the file, the line and the
// field: unknown fields, a missing name or task, a task listed twice, a
// published number outside [0, 100].
func Parse(file string, data []byte) (*Suite, error) {
	fail := func(line, item int, field, format string, args ...any) error {
		e := &yamlwalk.Error{Doc: "suite", File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
		if item >= 0 {
			e.Item = fmt.Sprintf("tasks[%d]", item)
		}
		return e
	}
	top, err := yamlwalk.Root(data)
	if err != nil {
		return nil, fail(0, -1, "", "%w", err)
	}
	if top == nil {
		return nil, fail(0, -1, "", "empty file")
	}
	var s Suite
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fail(0, -1, "", "%w", err)
	}
	s.File, s.lines = file, map[string]int{}
	if top.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(top.Content); i += 2 {
			s.lines[top.Content[i].Value] = top.Content[i].Line
		}
	}
	if s.Name == "" {
		return nil, fail(0, -1, "name", "missing")
	}
	if len(s.Tasks) == 0 {
		return nil, fail(s.lines["tasks"], -1, "tasks", "no tasks")
	}
	if r := s.ReportedAverage; r != nil && !(*r >= 0 && *r <= 100) {
		return nil, fail(s.lines["reported_average"], -1, "reported_average", "%v is not a score ×100 in [0, 100]", *r)
	}
	seen := map[string]int{}
	for i, e := range s.Tasks {
		if e.Task == "" {
			return nil, fail(e.Line, i, "task", "missing")
		}
		if first, ok := seen[e.Task]; ok {
			return nil, fail(e.Line, i, "", "task %q listed twice (first on line %d)", e.Task, first)
		}
		seen[e.Task] = e.Line
		if r := e.Reported; r != nil && !(*r >= 0 && *r <= 100) {
			return nil, fail(e.Line, i, "reported", "%v is not a score ×100 in [0, 100]", *r)
		}
	}
	return &s, nil
}

// TaskMetrics is what Check needs to know of a task: its name, its primary
// metric and the metrics it reports.
type TaskMetrics struct {
	Name          string
	PrimaryMetric string
	Metrics       []string
}

// Check checks the suite's entries against the tasks they name: info
// returns a task's metrics (an error for an unknown task). A metric
// override must be one of the metrics the task reports. Errors name the
// file, the entry's line and the field.
func (s *Suite) Check(info func(task string) (TaskMetrics, error)) error {
	for i, e := range s.Tasks {
		at := func(field string, err error) error {
			return &yamlwalk.Error{Doc: "suite", File: s.File, Line: e.Line, Item: fmt.Sprintf("tasks[%d]", i), Field: field, Err: err}
		}
		name := e.Task
		if e.File != "" {
			name = e.File
		}
		in, err := info(name)
		if err != nil {
			return at("task", err)
		}
		if e.Metric == "" || e.Metric == in.PrimaryMetric || slices.Contains(in.Metrics, e.Metric) {
			continue
		}
		return at("metric", fmt.Errorf("task %s has no metric %q (its metrics: %s)", in.Name, e.Metric, strings.Join(in.Metrics, ", ")))
	}
	return nil
}

// readFile reads a suite file; entries that are task files (paths relative
// to the suite file) are named by their task.
func readFile(file string, taskFile TaskFileNamer) (*Suite, error) {
	data, err := regfile.ReadFile(file, regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("read suite: %w", err)
	}
	s, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	for i, e := range s.Tasks {
		if !IsTaskFile(e.Task) {
			continue
		}
		p := e.Task
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		at := func(err error) error {
			return &yamlwalk.Error{Doc: "suite", File: file, Line: e.Line, Item: fmt.Sprintf("tasks[%d]", i), Field: "task", Err: err}
		}
		if taskFile == nil {
			return nil, at(fmt.Errorf("%s is a task file, which this command cannot read", e.Task))
		}
		name, err := taskFile(p)
		if err != nil {
			return nil, at(err)
		}
		s.Tasks[i].Task, s.Tasks[i].File = name, p
	}
	return s, nil
}

// IsTaskFile reports whether a suite entry's task names a task file rather
// than a task: a path (it ends in .yaml or .yml, or has a path separator),
// the rule of taskfile.IsPath.
func IsTaskFile(task string) bool {
	return strings.HasSuffix(task, ".yaml") || strings.HasSuffix(task, ".yml") ||
		strings.ContainsRune(task, '/') || strings.ContainsRune(task, filepath.Separator)
}
