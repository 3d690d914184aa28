package taskfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals"
)

// IsPath reports whether a --tasks entry names a task file or a directory
// of them rather than a built-in task: it ends in .yaml or .yml or contains
// a path separator. A directory in the working directory is named
// "./dir", so that a directory that happens to share a task's name (a
// dataset folder called gsm8k) never shadows the task.
func IsPath(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") ||
		strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator)
}

// Load reads a task file, or every task file under a directory (*.yaml
// and *.yml, recursively, in path order). In a directory, files that
// define no task of their own (lm-eval's shared templates, which have no
// `task` key, and group files, whose `task` is a list) are skipped; a file
// that defines a task and is wrong is an error. Task names must be unique.
func Load(path string) ([]evals.Task, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load task file: %w", err)
	}
	if !st.IsDir() {
		t, err := Parse(path)
		if err != nil {
			return nil, err
		}
		return []evals.Task{t}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load task directory: %w", err)
	}
	sort.Strings(files)
	var tasks []evals.Task
	names := map[string]string{}
	for _, f := range files {
		defines, err := definesTask(f)
		if err != nil {
			return nil, err
		}
		if !defines {
			continue
		}
		t, err := Parse(f)
		if err != nil {
			return nil, err
		}
		name := t.Info().Name
		if prev, dup := names[name]; dup {
			return nil, &Error{File: f, Field: "task", Err: fmt.Errorf("task %q is also defined in %s", name, prev)}
		}
		names[name] = f
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("load task directory %s: no task files (YAML files with a task key)", path)
	}
	return tasks, nil
}

// definesTask reports whether a file (without its includes) has a `task`
// key naming one task.
func definesTask(path string) (bool, error) {
	root, err := readRoot(path)
	if err != nil || root == nil {
		return false, err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "task" {
			return root.Content[i+1].Kind == yaml.ScalarNode, nil
		}
	}
	return false, nil
}
