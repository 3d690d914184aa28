package code

import (
	"reflect"
	"testing"
	"time"
)

// TestTaskOptionsTimeLimits: a time-limit policy other than the default is
// a task option (resuming with another is refused, merge rebuilds it), and
// it round-trips through WithTaskOptions.
func TestTaskOptionsTimeLimits(t *testing.T) {
	t.Parallel()
	if o := HumanEval(Options{}).TaskOptions(); o != nil {
		t.Fatalf("defaults record %v", o)
	}
	tl := TimeLimits{Mode: TimeLimitsOfficial, Floor: 5 * time.Second, Factor: 2.5}
	task := HumanEval(Options{}).WithTimeLimits(tl)
	want := map[string]string{OptionTimeLimitMode: "official", OptionTimeLimitFloor: "5s", OptionTimeLimitFactor: "2.5"}
	if got := task.TaskOptions(); !reflect.DeepEqual(got, want) {
		t.Fatalf("options %v, want %v", got, want)
	}
	back, err := HumanEval(Options{}).WithTaskOptions(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.(*Task).TimeLimits(); got.Mode != tl.Mode || got.Floor != tl.Floor || got.Factor != tl.Factor {
		t.Errorf("round trip: %+v, want %+v", got, tl)
	}
	if _, err := HumanEval(Options{}).WithTaskOptions(map[string]string{OptionTimeLimitFactor: "x"}); err == nil {
		t.Error("a bad factor was accepted")
	}
}
