package runner

import (
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// quarterTask is a four-choice task whose random baseline is 1/4.
type quarterTask struct{ fakeTask }

func (quarterTask) Chance(s evals.Sample, metric string) (float64, bool) {
	return 0.25, metric == "acc"
}

func TestChanceOf(t *testing.T) {
	results := func(vals ...float64) []evals.SampleResult {
		var out []evals.SampleResult
		for _, v := range vals {
			out = append(out, evals.SampleResult{Score: evals.Score{Values: map[string]float64{"acc": v}}})
		}
		return out
	}
	var at, above []float64
	for i := range 40 {
		at = append(at, float64(i%4/3))       // 10 of 40: chance
		above = append(above, float64(i%4/2)) // 20 of 40
	}
	task := quarterTask{fakeTask{"q", 40}}
	if c := chanceOf(task, "acc", results(at...)); c == nil || c.Above || c.Correct != 10 || c.Baseline != 0.25 {
		t.Errorf("at chance: %+v", c)
	}
	if c := chanceOf(task, "acc", results(above...)); c == nil || !c.Above || c.Correct != 20 {
		t.Errorf("above chance: %+v", c)
	}
	if c := chanceOf(task, "acc", results(0.5, 1)); c != nil {
		t.Errorf("graded values: %+v, want none", c)
	}
	if c := chanceOf(task, "f1", results(1)); c != nil {
		t.Errorf("metric without a baseline: %+v", c)
	}
	if c := chanceOf(fakeTask{"q", 1}, "acc", results(1)); c != nil {
		t.Errorf("task without Chance: %+v", c)
	}
}

// zeroTask is a free-form task: a random answer does not hit its target.
type zeroTask struct{ fakeTask }

func (zeroTask) Chance(s evals.Sample, metric string) (float64, bool) { return 0, true }

// TestChanceOfZeroBaseline: a baseline of 0 (gsm8k's numbers) has no chance
// level worth a test, so no VS CHANCE row and no mark (issue 48).
func TestChanceOfZeroBaseline(t *testing.T) {
	r := []evals.SampleResult{{Score: evals.Score{Values: map[string]float64{"acc": 0}}}}
	if c := chanceOf(zeroTask{fakeTask{"z", 1}}, "acc", r); c != nil {
		t.Errorf("zero baseline: %+v, want none", c)
	}
}
