package ifeval

import (
	"context"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
)

// TestWithLangdetectSeed: the seed reaches the language checks, the task
// version and the manifest environment. The all-capitals answer is English
// for langdetect seeded 1 and not for seed 0 (the official scorer's
// verdicts, scorers/ifeval/testdata/official_verdicts.json).
func TestWithLangdetectSeed(t *testing.T) {
	sample := evals.Sample{ID: "1", Meta: map[string]any{
		MetaInstructionIDs: []string{"change_case:english_capital"},
		MetaKwargs:         []map[string]any{{}},
	}}
	out := evals.Output{Text: "TOP 3 TIPS: SLEEP, WATER, EXERCISE"}
	for _, tt := range []struct {
		task    evals.Task
		version string
		strict  float64
	}{
		{EN, "2", 0},
		{EN.WithLangdetectSeed(0), "2", 0},
		{EN.WithLangdetectSeed(1), "2+langdetect-seed.1", 1},
		{EN.WithLangdetectSeed(1).(*Task).WithLangdetectSeed(4), "2+langdetect-seed.4", 1},
		{ZH.WithLangdetectSeed(3), "2+langdetect-seed.3", 0},
	} {
		info := tt.task.Info()
		if info.Version != tt.version {
			t.Errorf("%s version %q, want %q", info.Name, info.Version, tt.version)
		}
		sc, err := tt.task.Score(context.Background(), sample, out)
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.Values[MetricPromptStrict]; got != tt.strict {
			t.Errorf("%s %s: strict %v, want %v", info.Name, info.Version, got, tt.strict)
		}
		env := map[string]any{}
		nt, closer, err := tt.task.(evals.Setupper).Setup(context.Background(), evals.Env{
			Record: func(k string, v any) { env[k] = v },
			Warn:   func(string, ...any) {},
		})
		if err != nil || closer != nil || nt != tt.task {
			t.Fatalf("Setup = %v, %v, %v", nt, closer, err)
		}
		if _, ok := env[info.Name+".langdetect_seed"]; !ok || len(env) != 1 {
			t.Errorf("Setup recorded %v, want %s.langdetect_seed", env, info.Name)
		}
	}
	if EN.Info().Version != "2" {
		t.Errorf("WithLangdetectSeed changed EN")
	}
}

// TestTaskOptions: a seed other than 0 is the task's one option, and the
// task rebuilt from its options is the same task (what merge does).
func TestTaskOptions(t *testing.T) {
	t.Parallel()
	if o := EN.TaskOptions(); o != nil {
		t.Errorf("EN options %v, want none", o)
	}
	seeded := EN.WithLangdetectSeed(7).(*Task)
	opts := seeded.TaskOptions()
	if len(opts) != 1 || opts[OptionLangdetectSeed] != "7" {
		t.Fatalf("seed 7 options %v", opts)
	}
	back, err := EN.WithTaskOptions(opts)
	if err != nil || back.Info().Version != "2+langdetect-seed.7" || back.(*Task).seed != 7 {
		t.Errorf("WithTaskOptions(%v) = %v, %v", opts, back, err)
	}
	if back, err := seeded.WithTaskOptions(nil); err != nil || back.Info().Version != "2" {
		t.Errorf("WithTaskOptions(nil) on a seeded task = %v, %v; want the default seed", back, err)
	}
	for _, bad := range []map[string]string{{"seed": "7"}, {OptionLangdetectSeed: "-1"}, {OptionLangdetectSeed: "x"}} {
		if _, err := EN.WithTaskOptions(bad); err == nil {
			t.Errorf("WithTaskOptions(%v) accepted", bad)
		}
	}
}
