package cli

import (
	"regexp"
	"testing"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// TestLazyExpressionsCompile compiles every package-level expression that
// the packages of the command leave to first use (internal/lazyre), so
// that a bad one fails here rather than in the middle of a run.
func TestLazyExpressionsCompile(t *testing.T) {
	all := lazyre.All()
	if len(all) < 40 {
		t.Fatalf("only %d lazy expressions registered", len(all))
	}
	for _, r := range all {
		if _, err := regexp.Compile(r.String()); err != nil {
			t.Errorf("%q: %v", r.String(), err)
		}
	}
}
