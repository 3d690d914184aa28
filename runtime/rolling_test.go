package runtime

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// RollingWindows equals lm-eval's get_rolling_token_windows +
// make_disjoint_window on every case testdata/make_rolling.py recorded
// from the harness's own functions.
func TestRollingWindowsMatchLMEval(t *testing.T) {
	b, err := os.ReadFile("testdata/rolling_windows.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			N       int      `json:"n"`
			MaxLen  int      `json:"max_len"`
			Prefix  int32    `json:"prefix"`
			Windows []Window `json:"windows"`
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 50 {
		t.Fatalf("%d cases", len(g.Cases))
	}
	for _, c := range g.Cases {
		toks := make([]int32, c.N)
		for i := range toks {
			toks[i] = int32(10 + i)
		}
		got := RollingWindows(toks, c.Prefix, c.MaxLen)
		if len(got) != len(c.Windows) {
			t.Errorf("n %d max_len %d: %d windows, lm-eval %d", c.N, c.MaxLen, len(got), len(c.Windows))
			continue
		}
		scored := 0
		for i, w := range got {
			want := c.Windows[i]
			if !slices.Equal(w.Context, want.Context) || !slices.Equal(w.Continuation, want.Continuation) {
				t.Errorf("n %d max_len %d window %d: %v, lm-eval %v", c.N, c.MaxLen, i, w, want)
			}
			if in := WindowInput(w, c.MaxLen); len(in) > c.MaxLen || len(in) < len(w.Continuation) {
				t.Errorf("n %d max_len %d window %d: input of %d tokens", c.N, c.MaxLen, i, len(in))
			}
			scored += len(w.Continuation)
		}
		if scored != c.N {
			t.Errorf("n %d max_len %d: %d tokens scored", c.N, c.MaxLen, scored)
		}
	}
}
