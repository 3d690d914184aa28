package gate

import (
	"strings"
	"testing"
)

// TestPolicyFileLineField: every problem in a policy names the file, the
// line and the field. Issue 21: "alpha: 0" silently became 0.05, and a NaN
// passed every range check.
func TestPolicyFileLineField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"alpha: 0\n", `gate.yaml:1: field "alpha": must be in (0,1), got 0`},
		{"alpha: .nan\n", `gate.yaml:1: field "alpha": must be a finite number, got .nan`},
		{"alpha: 1\n", `field "alpha": must be in (0,1), got 1`},
		{"alpha: x\n", `field "alpha": must be a number, got "x"`},
		{"defaults:\n  max_drop: .inf\n", `gate.yaml:2: field "defaults.max_drop": must be a finite number`},
		{"defaults:\n  max_drop: .nan\n", `gate.yaml:2: field "defaults.max_drop": must be a finite number`},
		{"tasks:\n  gsm8k: {min_score: .NaN}\n", `gate.yaml:2: field "tasks.gsm8k.min_score": must be a finite number`},
		{"tasks:\n  gsm8k: {min_score: 1}\n  gsm8k: {min_score: 2}\n", `gate.yaml:3: field "tasks.gsm8k": repeats line 2`},
		{"alpha: 0.1\nalpha: 0.2\n", `gate.yaml:2: field "alpha": repeats line 1`},
		{"tasks:\n  gsm8k: {max_drp: 1}\n", `gate.yaml:2: field "tasks.gsm8k": unknown field "max_drp"`},
		{"tasks:\n  gsm8k: 5\n", `gate.yaml:2: field "tasks.gsm8k": must be a mapping`},
		{"defaults: {require_significance: maybe}\n", `field "defaults.require_significance": must be true or false`},
		{"suite_average_floor: 101\n", `field "suite_average_floor": must be in [0,100]`},
		{"fail_on_errors: 3\n", `field "fail_on_errors": must be true or false`},
		{"require_tasks: {a: 1}\n", `field "require_tasks": must be a list of task names`},
		{"- 1\n", `gate.yaml:1: a policy is a mapping of fields`},
	} {
		if _, err := ParsePolicy("gate.yaml", []byte(c.text), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePolicy(%q) = %v, want %q", c.text, err, c.want)
		}
	}
}

// TestPolicyValues: what a valid policy says, with aliases and defaults.
func TestPolicyValues(t *testing.T) {
	t.Parallel()
	p, err := ParsePolicy("gate.yaml", []byte("defaults: &d {max_drop: 2, require_significance: true}\ntasks:\n  a: *d\n  b: {min_score: 40}\n  c:\nsuite_average_floor: 48\nfail_on_errors: false\nrequire_tasks: [a, b]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Alpha != 0.05 || *p.Defaults.MaxDrop != 2 || *p.Tasks["a"].MaxDrop != 2 || *p.Tasks["b"].MinScore != 40 || p.Tasks["c"].MaxDrop != nil ||
		*p.SuiteAverageFloor != 48 || *p.FailOnErrors || strings.Join(p.RequireTasks, ",") != "a,b" {
		t.Errorf("policy = %+v", p)
	}
	for _, empty := range []string{"", "# nothing\n", "tasks:\n"} {
		if p, err := ParsePolicy("gate.yaml", []byte(empty), nil); err != nil || p.Alpha != 0.05 {
			t.Errorf("%q: %+v, %v", empty, p, err)
		}
	}
}
