// Package sharedtest locates the project's shared test material — the
// benchmark datasets, the tiny real models and the conformance files that
// live in ../shared next to the repository — for tests in any package.
//
// Datasets honour $POCKETEVAL_DATA. When a directory is missing, tests are
// skipped with the path in the message, except under CI (CI set), where a
// missing directory fails the test: CI is expected to have everything.
package sharedtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Root returns the repository root: the nearest directory above the
// working directory that holds go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod) not found")
		}
		dir = parent
	}
}

// Dir returns <root>/../shared/<rel>, skipping the test (failing it under
// CI) when it does not exist.
func Dir(t testing.TB, rel string) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	return existing(t, filepath.Join(filepath.Dir(root), "shared", rel))
}

// Datasets returns $POCKETEVAL_DATA, else <root>/../shared/datasets.
func Datasets(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("POCKETEVAL_DATA"); d != "" {
		return existing(t, d)
	}
	return Dir(t, "datasets")
}

// Models returns <root>/../shared/models.
func Models(t testing.TB) string {
	t.Helper()
	return Dir(t, "models")
}

// Conformance returns <root>/../shared/conformance.
func Conformance(t testing.TB) string {
	t.Helper()
	return Dir(t, "conformance")
}

func existing(t testing.TB, p string) string {
	t.Helper()
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared test material missing under CI: %v", err)
		}
		t.Skipf("shared test material not found: %v", err)
	}
	return p
}
