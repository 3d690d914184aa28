package code

import (
	"context"
	"errors"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/sandbox"
)

// TestNewSandbox sets up humaneval with the production constructor and
// checks the manifest record and a pass and a fail through the real pool.
func TestNewSandbox(t *testing.T) {
	t.Parallel()
	recorded := map[string]any{}
	var warnings []string
	env := evals.Env{
		Workers: 1,
		Record:  func(k string, v any) { recorded[k] = v },
		Warn:    func(f string, a ...any) { warnings = append(warnings, f) },
	}
	task, closer, err := HumanEval(Options{NewExecutor: NewSandbox}).Setup(context.Background(), env)
	if errors.Is(err, sandbox.ErrInsufficientIsolation) {
		t.Skipf("the sandbox cannot isolate programs on this machine: %v", err)
	}
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	defer closer.Close()
	layers, ok := recorded["sandbox"].(sandbox.Layers)
	if !ok {
		t.Fatalf("manifest record %v, want sandbox.Layers", recorded)
	}
	t.Logf("sandbox layers:\n%s", layers)
	if err := layers.Check(); err != nil || layers.Unsafe || len(warnings) != 0 {
		t.Errorf("layers %v, check %v, warnings %q", layers, err, warnings)
	}
	s := evals.Sample{ID: "t/0", Input: "def f():\n", Meta: map[string]any{
		MetaPrompt: "def f():\n", MetaTest: "def check(c):\n    assert c() == 1", MetaEntryPoint: "f"}}
	for text, want := range map[string]float64{"    return 1\n": 1, "    return 2\n": 0} {
		sc, err := task.Score(context.Background(), s, evals.Output{Text: text, Prompt: s.Input})
		if err != nil {
			t.Fatalf("Score: %v", err)
		}
		if sc.Values["pass"] != want {
			t.Errorf("%q: pass = %v, want %v (%v)", text, sc.Values["pass"], want, sc.Details)
		}
	}
}
