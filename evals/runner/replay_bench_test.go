package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/replay"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
	"github.com/pocketeval/pocketeval/suite"
)

// BenchmarkReplay re-scores saved predictions for every sample of each
// pocket11 task (code execution aside) and of all of them at once, the way
// `pocketeval run --runtime replay` does — one request per core — and
// reports samples/s. The predictions are made first, untimed, by a stand-in
// model (runtimetest.Fake's word chains, about 200 words) so the answers
// have realistic sizes. Needs the shared datasets.
func BenchmarkReplay(b *testing.B) {
	data := sharedtest.Datasets(b)
	s, err := suite.Get("pocket11", nil)
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, n := range s.TaskNames() {
		if n != "humaneval" && n != "mbpp" {
			names = append(names, n)
		}
	}
	all, err := registry.Lookup(registry.All(), names)
	if err != nil {
		b.Fatal(err)
	}
	preds := filepath.Join(b.TempDir(), "predictions.jsonl")
	if err := writePredictions(all, data, preds); err != nil {
		b.Fatal(err)
	}
	bench := func(b *testing.B, tasks []evals.Task) {
		samples := 0
		stop := watchLiveHeap()
		for b.Loop() {
			rt, err := replay.Open(preds)
			if err != nil {
				b.Fatal(err)
			}
			res, err := Run(context.Background(), Options{
				Tasks: tasks, Runtime: rt, RuntimeName: "replay", OutDir: b.TempDir(), DataDir: data,
				Concurrency: goruntime.GOMAXPROCS(0), NumFewshot: -1, Chat: true, StripThinking: true,
			})
			rt.Close()
			if err != nil {
				b.Fatal(err)
			}
			samples += res.Generated
		}
		b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
		b.ReportMetric(float64(stop()), "peak-live-B")
	}
	for _, t := range all {
		b.Run(t.Info().Name, func(b *testing.B) { bench(b, []evals.Task{t}) })
	}
	b.Run("all", func(b *testing.B) { bench(b, all) })
}

// writePredictions answers every sample of tasks with the stand-in model
// and writes the answers as prediction lines.
func writePredictions(tasks []evals.Task, data, path string) error {
	dir, err := os.MkdirTemp("", "replay-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := Run(context.Background(), Options{
		Tasks: tasks, Runtime: &runtimetest.Fake{EOSEvery: 200}, RuntimeName: "stand-in", OutDir: dir, DataDir: data,
		Concurrency: goruntime.GOMAXPROCS(0), NumFewshot: -1, Chat: true, StripThinking: true,
	}); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, t := range tasks {
		recs, _, err := results.ReadSamples(results.SamplesPath(dir, t.Info().Name))
		if err != nil {
			f.Close()
			return err
		}
		for _, r := range recs {
			if err := enc.Encode(map[string]string{"task": r.Task, "id": r.ID, "response": r.Response, "finish_reason": r.FinishReason}); err != nil {
				f.Close()
				return err
			}
		}
	}
	return f.Close()
}

// watchLiveHeap samples the heap's live bytes (as the last collection
// found them) until the function it returns is called, which gives the
// largest seen: the live set the collector's headroom is proportional to.
func watchLiveHeap() func() uint64 {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var peakSeen uint64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peakSeen = max(peakSeen, s[0].Value.Uint64())
			select {
			case <-done:
				peak <- peakSeen
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-peak
	}
}
