// Package registry lists every task pocketeval knows. Each benchmark family
// contributes its tasks from its own file here, so adding a family never
// touches another's code.
package registry

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile"
	"github.com/pocketeval/pocketeval/results"
)

// Family is a set of tasks that measure one capability; leaderboards group
// their columns under it.
type Family struct {
	Capability string // "instruction following", "math", "code", "knowledge", "tool calling"
	Tasks      []evals.Task
}

// Families returns the task families in display order.
func Families() []Family {
	return []Family{
		{"instruction following", ifevalTasks()},
		{"math", mathTasks()},
		{"code", codeTasks()},
		{"knowledge", knowledgeTasks()},
		{"tool calling", toolTasks()},
	}
}

// All returns every known task, sorted by name.
func All() []evals.Task {
	var all []evals.Task
	for _, f := range Families() {
		all = append(all, f.Tasks...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Info().Name < all[j].Info().Name })
	return all
}

// UnknownTaskError names a task that does not exist, with suggestions.
type UnknownTaskError struct {
	Name        string
	Suggestions []string
}

func (e *UnknownTaskError) Error() string {
	msg := fmt.Sprintf("unknown task %q", e.Name)
	if len(e.Suggestions) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(e.Suggestions, ", "))
	}
	return msg + "; `pocketeval tasks` lists them"
}

// Lookup finds tasks by name from a list. A name that is a path (see
// taskfile.IsPath) loads that task file, every task file under that
// directory, or the tasks of that group file (Select also returns its
// groups).
func Lookup(tasks []evals.Task, names []string) ([]evals.Task, error) {
	sel, err := Select(tasks, names)
	if err != nil {
		return nil, err
	}
	return sel.Tasks, nil
}

// Selection is what a list of names selects: the tasks in run order, and
// the groups of the group files among the names.
type Selection struct {
	Tasks  []evals.Task
	Groups []results.Group
}

// Select is Lookup with the groups: a path to an lm-eval group file
// (taskfile.IsGroupFile) selects the tasks under the group, resolved among
// the files of its directory and the known tasks (taskfile.LoadGroup),
// and the group with its subgroups.
func Select(tasks []evals.Task, names []string) (*Selection, error) {
	byName := map[string]evals.Task{}
	for _, t := range tasks {
		byName[t.Info().Name] = t
	}
	sel := &Selection{}
	seen := map[string]bool{}
	add := func(t evals.Task, from string) error {
		name := t.Info().Name
		if seen[name] {
			return fmt.Errorf("task %q is given twice (the second time by %s)", name, from)
		}
		seen[name] = true
		sel.Tasks = append(sel.Tasks, t)
		return nil
	}
	builtin := func(name string) (evals.Task, bool) {
		t, ok := byName[name]
		return t, ok
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		if taskfile.IsPath(n) {
			files, groups, err := loadPath(n, builtin)
			if err != nil {
				return nil, err
			}
			for _, t := range files {
				if err := add(t, n); err != nil {
					return nil, err
				}
			}
			sel.Groups = append(sel.Groups, groups...)
			continue
		}
		t, ok := byName[n]
		if !ok {
			return nil, &UnknownTaskError{Name: n, Suggestions: suggest(n, tasks)}
		}
		if err := add(t, n); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// loadPath loads a task file, a directory of them, or a group file.
func loadPath(path string, builtin func(string) (evals.Task, bool)) ([]evals.Task, []results.Group, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		group, err := taskfile.IsGroupFile(path)
		if err != nil {
			return nil, nil, err
		}
		if group {
			set, err := taskfile.LoadGroup(path, builtin)
			if err != nil {
				return nil, nil, err
			}
			return set.Tasks, set.Groups, nil
		}
	}
	files, err := taskfile.Load(path)
	return files, nil, err
}

func suggest(name string, tasks []evals.Task) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, t := range tasks {
		n := t.Info().Name
		d := levenshtein(strings.ToLower(name), n)
		if d <= 3 || strings.Contains(n, strings.ToLower(name)) || strings.Contains(strings.ToLower(name), n) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
