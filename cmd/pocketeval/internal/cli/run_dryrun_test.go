package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRunDryRun plans a run without writing anything: a table per task
// (prompt tokens unknown for a runtime that cannot count them), or JSON.
func TestRunDryRun(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, "run", "--dry-run", "--runtime", "fake", "--tasks", "alpha,beta", "--max-tokens", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"TASK", "alpha", "beta", "NEW TOKENS", "cannot count them"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = run(t, "run", "--dry-run", "--runtime", "fake", "--tasks", "alpha", "--max-tokens", "7", "--json")
	var plan dryRunPlan
	if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || len(plan.Tasks) != 1 || plan.Tasks[0].Counted ||
		plan.Tasks[0].MaxNewTokens != int64(7*plan.Tasks[0].Samples) || plan.Tasks[0].Samples == 0 {
		t.Errorf("--json: exit %d, %s %s", code, out, errOut)
	}
}
