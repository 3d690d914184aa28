package bfcl_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime"
)

// TestBombsScoredAndCapped: hostile answers (values Python would build at
// gigabytes, FC arguments nested 100,000 deep) are scored as failures
// like any other answer, the following samples are scored, and what a
// sample records of them stays a few KB.
func TestBombsScoredAndCapped(t *testing.T) {
	data := sharedDir(t, "datasets")
	for _, name := range []string{"bfcl_simple", "bfcl_v2_simple", "bfcl_simple_fc"} {
		tk := task(t, name)
		ds, err := tk.Load(context.Background(), evals.LoadConfig{DataDir: data})
		if err != nil {
			t.Fatal(err)
		}
		outs := []evals.Output{
			{Text: "[calculate_triangle_area(base='a'*10**10, height=5)]"},
			{Text: "[f(a=[[1]*1000]*10**6)]"},
			{Text: "[f(a=[1]*10**9)]"},
			{Text: "[f(a='ab'*10**8)]"},
			{Text: "[f(a='%s'%('x'*10**9))]"},
			{Text: "[f(a='" + strings.Repeat("x", 1<<20) + "')]"},
		}
		if strings.HasSuffix(name, "_fc") {
			outs = append(outs, evals.Output{ToolCalls: toolCall("f", `{"number": `+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+"}")})
		}
		for i, out := range outs {
			s := ds.Samples[i]
			score, err := tk.Score(context.Background(), s, out)
			if err != nil {
				t.Fatalf("%s %s: %v", name, s.ID, err)
			}
			if score.Values["accuracy"] != 0 {
				t.Errorf("%s %s: scored %v", name, s.ID, score.Values)
			}
			msg, _ := score.Details["error"].(string)
			if len(msg) > 5000 || len(score.Extracted) > 5000 {
				t.Errorf("%s %s: %d bytes of error, %d of extracted", name, s.ID, len(msg), len(score.Extracted))
			}
		}
	}
}

func toolCall(name, args string) []runtime.ToolCall {
	return []runtime.ToolCall{{Name: name, Arguments: args}}
}
