// Package suite defines named sets of tasks (suites) with the numbers a
// model's authors published for them. It only defines them: the scores and
// the suite average of a run are computed by leaderboard.SuiteAverage, the
// one implementation `suite`, `gate`, `leaderboard` and `run --suite` use.
//
// Suites are embedded YAML files in suites/ (see pocket11.yaml), or a suite
// file given by path, whose tasks may be task files (paths relative to the
// suite file; see evals/taskfile).
package suite

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals/taskfile"
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
	// File is the task file of an entry that names one (then Task is the
	// file's task name).
	File string `yaml:"-" json:"file,omitempty"`
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

// Get returns the embedded suite called name, or reads the suite file name
// when it is a path (ends in .yaml or .yml, or contains a slash).
func Get(name string) (*Suite, error) {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, '/') {
		return readFile(name)
	}
	data, err := files.ReadFile(path.Join("suites", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("unknown suite %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return Parse(name+".yaml", data)
}

// Parse reads a suite definition.
func Parse(file string, data []byte) (*Suite, error) {
	var s Suite
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("suite %s: %w", file, err)
	}
	if s.Name == "" {
		return nil, fmt.Errorf("suite %s: field \"name\": missing", file)
	}
	seen := map[string]bool{}
	for i, e := range s.Tasks {
		if e.Task == "" {
			return nil, fmt.Errorf("suite %s: tasks[%d]: field \"task\": missing", file, i)
		}
		if seen[e.Task] {
			return nil, fmt.Errorf("suite %s: tasks[%d]: task %q listed twice", file, i, e.Task)
		}
		seen[e.Task] = true
	}
	if len(s.Tasks) == 0 {
		return nil, fmt.Errorf("suite %s: no tasks", file)
	}
	return &s, nil
}

// readFile reads a suite file; entries that are task files (paths relative
// to the suite file) are named by their task.
func readFile(file string) (*Suite, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read suite: %w", err)
	}
	s, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	for i, e := range s.Tasks {
		if !taskfile.IsPath(e.Task) {
			continue
		}
		p := e.Task
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		t, err := taskfile.Parse(p)
		if err != nil {
			return nil, fmt.Errorf("suite %s: tasks[%d]: %w", file, i, err)
		}
		s.Tasks[i].Task, s.Tasks[i].File = t.Info().Name, p
	}
	return s, nil
}
