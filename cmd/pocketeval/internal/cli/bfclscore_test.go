package cli

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
)

// TestBFCLScore combines two directories' BFCL tasks with BFCL v4's
// weights, picks the mode asked for, and refuses directories without one.
func TestBFCLScore(t *testing.T) {
	t.Parallel()
	write := func(tasks map[string]float64) string {
		dir := t.TempDir()
		s := &results.Summary{Tasks: map[string]*results.TaskSummary{}}
		for name, acc := range tasks {
			s.Tasks[name] = &results.TaskSummary{PrimaryMetric: "accuracy", Primary: acc, Samples: 200, Scored: 200}
		}
		if err := results.WriteSummary(dir, s); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a := write(map[string]float64{"bfcl_multi_turn_base_fc": 0.5, "bfcl_multi_turn_miss_func_fc": 0.25, "bfcl_multi_turn_base": 1, "gsm8k": 1})
	b := write(map[string]float64{"bfcl_irrelevance_fc": 0.8, "bfcl_live_irrelevance_fc": 0.6})
	f, out, _ := testFactory()
	if code := Execute(context.Background(), f, []string{"bfcl-score", "--fc", "--json", a, b}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Overall    float64                   `json:"overall"`
		Missing    []string                  `json:"missing"`
		Categories map[string]map[string]any `json:"categories"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// 30% × mean(0.5, 0.25, 0, 0) + 10% × mean(0.8, 0.6)
	if want := 0.3*0.1875 + 0.1*0.7; math.Abs(got.Overall-want) > 1e-12 || len(got.Categories) != 4 {
		t.Errorf("overall %v (categories %v), want %v", got.Overall, got.Categories, want)
	}
	if !strings.Contains(strings.Join(got.Missing, ","), "multi_turn_long_context") {
		t.Errorf("missing %v", got.Missing)
	}
	f, _, errb := testFactory()
	if code := Execute(context.Background(), f, []string{"bfcl-score", b}); code != ExitUsage || !strings.Contains(errb.String(), "no prompt-mode BFCL v4 task") {
		t.Errorf("a directory without prompt-mode BFCL tasks: exit %d, %s", code, errb)
	}
	f, _, errb = testFactory()
	if code := Execute(context.Background(), f, []string{"bfcl-score", filepath.Join(a, "nope")}); code != ExitUsage {
		t.Errorf("a missing directory: exit %d, %s", code, errb)
	}
}
