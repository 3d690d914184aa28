package gate

import (
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
)

// withCodeVerdictMode records in dir's manifest that task was judged in
// mode, as the code tasks do at set-up ("" records no mode: an older run).
func withCodeVerdictMode(t *testing.T, dir, task, mode string) string {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := map[string]any{"exec": "harness"}
	if mode != "" {
		rec["verdict_mode"] = map[string]any{"mode": mode}
	}
	if m.Environment == nil {
		m.Environment = map[string]any{}
	}
	m.Environment["code:"+task] = rec
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGateCodeVerdictMode: a policy asking for isolated verdicts fails the
// code tasks either run judged otherwise, and leaves other tasks alone.
func TestGateCodeVerdictMode(t *testing.T) {
	t.Parallel()
	scores := map[string][]float64{"ifeval": rundirtest.Pattern(100, 60), "humaneval": rundirtest.Pattern(100, 30)}
	policy := gatePolicy(t, "code_verdict_mode: isolated\n")
	run := func(name, mode string) *rundir.Run {
		return rundirtest.MustLoad(t, withCodeVerdictMode(t, rundirtest.FakeRun(t, name, scores, 0, 0), "humaneval", mode))
	}
	check := func(base, cand *rundir.Run, wantPass bool, wantReason string) {
		t.Helper()
		g, err := Gate(base, cand, policy, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.Pass != wantPass {
			t.Errorf("pass = %v, want %v: %v", g.Pass, wantPass, g.Failures)
		}
		for _, v := range g.Tasks {
			if v.Task == "ifeval" && !v.Pass {
				t.Errorf("ifeval failed: %v", v.Reasons)
			}
			if v.Task == "humaneval" && wantReason != "" && !strings.Contains(strings.Join(v.Reasons, "; "), wantReason) {
				t.Errorf("humaneval reasons %q, want %q", v.Reasons, wantReason)
			}
		}
	}
	check(run("a", "isolated"), run("b", "isolated"), true, "")
	check(run("c", "isolated"), run("d", "official"), false, "the candidate run judged it with official verdicts; the policy requires isolated")
	check(run("e", ""), run("f", "isolated"), false, "the baseline run judged it with official verdicts")
	if _, err := ParsePolicy("gate.yaml", []byte("code_verdict_mode: strict\n"), nil); err == nil || !strings.Contains(err.Error(), "code_verdict_mode") {
		t.Errorf("bad mode: err = %v", err)
	}
}
