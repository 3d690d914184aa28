package taskfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsListEveryKeyAndMetric keeps docs/tasks.md in step with the code:
// every key pocketeval applies, ignores or refuses, and every metric, is
// documented.
func TestDocsListEveryKeyAndMetric(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "tasks.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	var names []string
	names = append(names, SupportedKeys()...)
	names = append(names, IgnoredKeys()...)
	names = append(names, RefusedKeys()...)
	names = append(names, MetricNames()...)
	for _, n := range names {
		if !strings.Contains(doc, "`"+n+"`") {
			t.Errorf("docs/tasks.md does not mention `%s`", n)
		}
	}
}
