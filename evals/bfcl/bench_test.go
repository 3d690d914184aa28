package bfcl_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/runtime/replay"
)

// BenchmarkV2SimpleFC is the BFCL share of `pocketeval run --runtime
// replay --tasks bfcl_v2_simple_fc` on the published gpt-4o results
// (400 samples): loading the dataset, rendering every request (the
// OpenAI tools), and scoring every replayed answer; each op is the whole
// step over the 400 samples.
func BenchmarkV2SimpleFC(b *testing.B) {
	data := sharedDir(b, "datasets")
	root := sharedDir(b, "conformance", "bfcl")
	tk := task(b, "bfcl_v2_simple_fc")
	ctx := context.Background()
	ds, err := tk.Load(ctx, evals.LoadConfig{DataDir: data})
	if err != nil {
		b.Fatal(err)
	}
	rt, err := replay.Open(filepath.Join(root, "gpt-4o-2024-08-06-FC", "result", "simple_result.json"))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	pc := evals.PromptConfig{Chat: true}
	outs := make([]evals.Output, len(ds.Samples))
	for i, s := range ds.Samples {
		req, err := tk.Prompt(ds, s, pc)
		if err != nil {
			b.Fatal(err)
		}
		resp, err := rt.Generate(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		outs[i] = evals.Output{Raw: resp.Text, Text: resp.Text, ToolCalls: resp.ToolCalls, CallText: resp.Raw}
	}
	b.Run("Load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tk.Load(ctx, evals.LoadConfig{DataDir: data}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Prompt", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range ds.Samples {
				if _, err := tk.Prompt(ds, s, pc); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Score", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, s := range ds.Samples {
				if _, err := tk.Score(ctx, s, outs[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
