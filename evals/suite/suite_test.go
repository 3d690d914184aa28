package suite

import (
	"strings"
	"testing"
)

func TestPocket11(t *testing.T) {
	t.Parallel()
	s, err := Get("pocket11")
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
	} {
		if _, err := Parse("s.yaml", []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := Get("nope"); err == nil || !strings.Contains(err.Error(), "pocket11") {
		t.Errorf("Get(nope) = %v", err)
	}
}
