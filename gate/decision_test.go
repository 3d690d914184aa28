package gate

import (
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/scorers/selective"
	"github.com/pocketeval/pocketeval/stats"
)

// decisionRun is a run whose "ifeval" stands for a decision task whose threshold covers cov of
// the test decisions at ≤ 5% errors and whose ECE is ece (proportions).
func decisionRun(t *testing.T, name string, cov, ece float64) string {
	t.Helper()
	dir := rundirtest.FakeRun(t, name, map[string][]float64{"ifeval": rundirtest.Pattern(40, 30), "gsm8k": rundirtest.Pattern(40, 10)}, 0, 0)
	rundirtest.EditSummary(t, dir, func(s *results.Summary) {
		ts := s.Tasks["ifeval"]
		ts.Metrics["coverage_at_error"] = stats.Summary{Mean: cov, Lo: cov, Hi: cov, N: 40}
		ts.Metrics["ece"] = stats.Summary{Mean: ece, Lo: ece, Hi: ece, N: 40}
		ts.Decision = &selective.Report{Operating: selective.Operating{Target: 0.05, Found: cov > 0}}
	})
	return dir
}

func TestGateDecisionKeys(t *testing.T) {
	t.Parallel()
	base := rundirtest.MustLoad(t, decisionRun(t, "base", 0.6, 0.05))
	policy := gatePolicy(t, "tasks:\n  ifeval: {min_coverage_at_error: 50, max_ece: 10}\n")
	check := func(name string, cov, ece float64, pass bool, reason string) {
		t.Helper()
		g, err := Gate(base, rundirtest.MustLoad(t, decisionRun(t, name, cov, ece)), policy, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if g.Pass != pass || !strings.Contains(strings.Join(g.Failures, "\n"), reason) {
			t.Errorf("coverage %v, ece %v: pass %v, failures %q; want pass %v with %q", cov, ece, g.Pass, g.Failures, pass, reason)
		}
	}
	check("ok", 0.55, 0.08, true, "")
	check("low-coverage", 0.40, 0.08, false, "ifeval: coverage at ≤ 5.0% errors 40.00 is below the minimum 50.00")
	check("high-ece", 0.55, 0.12, false, "ifeval: ece 12.00 exceeds the maximum 10.00")
	// On a task that is not a decision task the keys cannot be met.
	g, err := Gate(base, rundirtest.MustLoad(t, decisionRun(t, "other", 0.6, 0.05)), gatePolicy(t, "tasks:\n  gsm8k: {min_coverage_at_error: 10}\n"), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.Pass || !strings.Contains(strings.Join(g.Failures, "\n"), "gsm8k: min_coverage_at_error needs a decision task") {
		t.Errorf("a key on a task without decisions: %q", g.Failures)
	}
}

func TestDecisionKeysErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ policy, want string }{
		{"defaults:\n  max_ece: 5\n", `gate.yaml:2: field "defaults.max_ece": a decision task's key`},
		{"tasks:\n  ifeval: {min_coverage_at_error: 120}\n", `gate.yaml:2: field "tasks.ifeval.min_coverage_at_error"`},
		{"tasks:\n  ifeval: {max_ece: high}\n", `tasks.ifeval.max_ece`},
	} {
		if _, err := ParsePolicy("gate.yaml", []byte(c.policy), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.policy, err, c.want)
		}
	}
}
