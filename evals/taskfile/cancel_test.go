package taskfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// A task's templates render under the context it is loaded with: once the
// run is interrupted, a slow template stops at its next step instead of
// running to the sandbox's limits.
func TestTemplateRenderStopsOnCancel(t *testing.T) {
	dir := t.TempDir()
	task := "task: slow\ndataset_path: ./d.jsonl\ntest_split: test\n" +
		"doc_to_text: \"{% for i in range(900) %}{% for j in range(900) %}{% endfor %}{% endfor %}{{ q }}\"\ndoc_to_target: a\n"
	path := filepath.Join(dir, "task.yaml")
	if err := os.WriteFile(path, []byte(task), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.jsonl"), []byte(`{"q": "2+2?", "a": "4"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parsed.Load(context.Background(), evals.LoadConfig{NumFewshot: -1}); err != nil {
		t.Fatalf("uncancelled load: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = parsed.Load(ctx, evals.LoadConfig{NumFewshot: -1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("load under a cancelled context: err = %v, want context.Canceled", err)
	}
}
