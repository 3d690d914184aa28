// Package layers holds the test that keeps the tree layered: every package
// of the module belongs to one storey, and an import may run only to its
// own storey or a lower one (see README.md, Layout).
package layers

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/pocketeval/pocketeval"

// storeys are the layers from the top: each lists the package path
// prefixes (relative to the module) that live on it; the longest matching
// prefix decides a package's storey.
var storeys = []struct {
	name     string
	prefixes []string
}{
	{"commands", []string{"cmd", "tools", "docs"}},
	{"runner and reports", []string{"evals/runner", "evals/registry", "models"}},
	{"tasks, gate, board", []string{"evals", "gate", "compare", "leaderboard", "rundir"}},
	{"scorers, runtimes, sandbox, results, data", []string{"scorers", "runtime", "sandbox", "results", "bench", "energy", "datasets", "suite"}},
	{"leaf helpers", []string{"internal", "stats"}},
}

// apart are packages of one storey that must not know each other: the
// reports read runs, never the tasks that made them.
var apart = []struct{ from, to []string }{
	{[]string{"gate", "compare", "leaderboard", "rundir"}, []string{"evals"}},
}

func hasPrefix(pkg, prefix string) bool {
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// storeyOf returns the index of pkg's storey (0 is the top), -1 if none.
func storeyOf(pkg string) int {
	best, at := -1, -1
	for i, s := range storeys {
		for _, p := range s.prefixes {
			if hasPrefix(pkg, p) && len(p) > best {
				best, at = len(p), i
			}
		}
	}
	return at
}

func matchesAny(pkg string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return hasPrefix(pkg, p) })
}

// imports lists every package of the module under root with its in-module
// imports (non-test files, with and without the mnn build tag).
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (name == "testdata" || name == "third_party" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(rel)
		for _, tags := range [][]string{nil, {"mnn"}} {
			ctx := build.Default
			ctx.BuildTags = tags
			p, err := ctx.ImportDir(path, 0)
			if err != nil {
				if _, ok := err.(*build.NoGoError); ok {
					continue
				}
				return err
			}
			for _, imp := range p.Imports {
				if hasPrefix(imp, module) && imp != module {
					dep := strings.TrimPrefix(imp, module+"/")
					if !slices.Contains(out[pkg], dep) {
						out[pkg] = append(out[pkg], dep)
					}
				}
			}
			if _, ok := out[pkg]; !ok {
				out[pkg] = nil
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNoImportRunsUp fails when a package imports one on a higher storey
// (or one it must stay apart from), and when a package has no storey.
func TestNoImportRunsUp(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	all := imports(t, root)
	pkgs := make([]string, 0, len(all))
	for p := range all {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	if len(pkgs) < 30 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	for _, pkg := range pkgs {
		if pkg == "." || strings.HasPrefix(pkg, "internal/layers") {
			continue
		}
		at := storeyOf(pkg)
		if at < 0 {
			t.Errorf("package %s is on no storey: add it to storeys", pkg)
			continue
		}
		for _, dep := range all[pkg] {
			if d := storeyOf(dep); d >= 0 && d < at {
				t.Errorf("%s (%s) imports %s (%s): an import runs back up", pkg, storeys[at].name, dep, storeys[d].name)
			}
			for _, a := range apart {
				if matchesAny(pkg, a.from) && matchesAny(dep, a.to) {
					t.Errorf("%s imports %s: the reports read runs, not tasks", pkg, dep)
				}
			}
		}
	}
}

// TestStoreyRule checks the rule itself on a made-up back arrow.
func TestStoreyRule(t *testing.T) {
	for _, c := range []struct {
		pkg  string
		want int
	}{
		{"cmd/pocketeval/internal/cli", 0}, {"evals/runner", 1}, {"evals/math", 2}, {"gate", 2},
		{"runtime/chattemplate", 3}, {"suite", 3}, {"internal/gguf", 4}, {"stats", 4}, {"nowhere", -1},
	} {
		if got := storeyOf(c.pkg); got != c.want {
			t.Errorf("storeyOf(%s) = %d, want %d", c.pkg, got, c.want)
		}
	}
	if !(storeyOf("datasets") > storeyOf("evals/math")) {
		t.Error("datasets must sit below the tasks")
	}
}
