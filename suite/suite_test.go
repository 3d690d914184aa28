package suite

import (
	"fmt"
	"strings"
	"testing"
)

func TestPocket11(t *testing.T) {
	t.Parallel()
	s, err := Get("pocket11", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 11 {
		t.Fatalf("pocket11 has %d tasks, want 11", len(s.Tasks))
	}
	if s.ReportedAverage == nil || *s.ReportedAverage != 50.00 {
		t.Errorf("reported average = %v", s.ReportedAverage)
	}
	reported := map[string]float64{}
	for _, e := range s.Tasks {
		if e.Reported != nil {
			reported[e.Task] = *e.Reported
		}
	}
	want := map[string]float64{"ifeval": 73.20, "ifeval_zh": 74.59, "mgsm_zh": 51.20, "humaneval": 53.66}
	for k, v := range want {
		if reported[k] != v {
			t.Errorf("%s reported %v, want %v", k, reported[k], v)
		}
	}
	if len(reported) != len(want) {
		t.Errorf("reported numbers for %v; only %v are published", reported, want)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, want string }{
		{"tasks: [{task: a}]\n", "name"},
		{"name: x\n", "no tasks"},
		{"name: x\ntasks: [{task: a}, {task: a}]\n", "twice"},
		{"name: x\ntasks: [{metric: m}]\n", "tasks[0]"},
		{"name: x\nbogus: 1\ntasks: [{task: a}]\n", "bogus"},
		{"name: x\ntasks:\n  - task: a\n  - {task: b, reported: 130}\n", `s.yaml:4: tasks[1]: field "reported": 130 is not a score`},
		{"name: x\nreported_average: -1\ntasks: [{task: a}]\n", `s.yaml:2: field "reported_average"`},
		{"name: x\ntasks:\n  - task: a\n    metrc: acc\n", "line 4: field metrc not found"},
		{"name: x\ntasks:\n  - task: a\n  - task: a\n", "s.yaml:4: tasks[1]: task \"a\" listed twice (first on line 3)"},
		{"", "empty file"},
	} {
		if _, err := Parse("s.yaml", []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := Get("nope", nil); err == nil || !strings.Contains(err.Error(), "pocket11") {
		t.Errorf("Get(nope) = %v", err)
	}
}

// TestCheck: a user's suite names tasks and metric overrides that exist;
// errors name the file, the entry's line and the field.
func TestCheck(t *testing.T) {
	t.Parallel()
	info := func(task string) (TaskMetrics, error) {
		if task != "gsm8k" {
			return TaskMetrics{}, fmt.Errorf("unknown task %q", task)
		}
		return TaskMetrics{Name: "gsm8k", PrimaryMetric: "exact_match_flexible", Metrics: []string{"exact_match_flexible", "exact_match_strict"}}, nil
	}
	for _, c := range []struct{ text, want string }{
		{"name: x\ntasks:\n  - {task: gsm8k, metric: exact_match_strict, reported: 12.5}\n", ""},
		{"name: x\ntasks:\n  - {task: gsm8k}\n  - {task: gsm8kk}\n", `s.yaml:4: tasks[1]: field "task": unknown task "gsm8kk"`},
		{"name: x\ntasks:\n  - task: gsm8k\n    metric: acc\n", `s.yaml:3: tasks[0]: field "metric": task gsm8k has no metric "acc" (its metrics: exact_match_flexible, exact_match_strict)`},
	} {
		s, err := Parse("s.yaml", []byte(c.text))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Check(info)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%q) = %v, want %q", c.text, err, c.want)
		}
	}
}
