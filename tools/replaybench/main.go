// Command replaybench times the harness alone: it re-scores saved
// predictions for a suite's tasks through the runner and the replay
// runtime, where no model runs, and reports wall time, samples per second
// per task and the peak resident memory.
//
//	go run ./tools/replaybench -tasks bbh,gsm8k -predictions /tmp/preds.jsonl -make -out /tmp/replay
//
// With -make and no predictions file yet, it first writes one: every
// sample of the tasks answered by a stand-in model (runtimetest.Fake's
// deterministic word chains, about 200 words; no model runs), so the
// timing covers rendering, replay lookup, scoring and the result files at
// realistic answer sizes. -cpuprofile and -memprofile write pprof
// profiles of the timed replay.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/internal/procfs"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/replay"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
	"github.com/pocketeval/pocketeval/suite"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "replaybench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replaybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tasksFlag := fs.String("tasks", "", "comma-separated tasks (default: the suite's tasks without code execution)")
	suiteName := fs.String("suite", "pocket11", "suite whose tasks to use when -tasks is empty")
	preds := fs.String("predictions", "", "predictions file (required)")
	make_ := fs.Bool("make", false, "write the predictions file first when it does not exist")
	out := fs.String("out", "", "result directory (required; replaced)")
	conc := fs.Int("concurrency", 1, "requests in flight")
	dataDir := fs.String("data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the replay here")
	memProfile := fs.String("memprofile", "", "write an allocation profile of the replay here")
	memRate := fs.Int("memprofilerate", 0, "with -memprofile: record one allocation per this many bytes (1: every allocation; 0: the runtime's default, 512 KiB)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *preds == "" || *out == "" {
		return fmt.Errorf("-predictions and -out are required")
	}
	if *memProfile != "" && *memRate > 0 {
		goruntime.MemProfileRate = *memRate
	}
	names := strings.Split(*tasksFlag, ",")
	if *tasksFlag == "" {
		s, err := suite.Get(*suiteName, nil)
		if err != nil {
			return err
		}
		names = nil
		for _, n := range s.TaskNames() {
			if n != "humaneval" && n != "mbpp" {
				names = append(names, n)
			}
		}
	}
	tasks, err := registry.Lookup(registry.All(), names)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if _, err := os.Stat(*preds); err != nil && *make_ {
		start := time.Now()
		if err := makePredictions(ctx, tasks, *dataDir, *preds); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s in %v\n", *preds, time.Since(start).Round(time.Millisecond))
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	rt, err := replay.Open(*preds)
	if err != nil {
		return err
	}
	defer rt.Close()
	opened := time.Since(start)
	prog := &timer{start: time.Now(), last: map[string]time.Time{}, n: map[string]int{}}
	res, err := runner.Run(ctx, runner.Options{
		Tasks: tasks, Runtime: rt, RuntimeName: "replay", Model: results.Model{Path: *preds},
		OutDir: *out, DataDir: *dataDir, Concurrency: *conc, NumFewshot: -1, Chat: true, StripThinking: true,
		Progress: prog,
	})
	if err != nil {
		return err
	}
	wall := time.Since(start)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tsamples\tfinished at\tsamples/s\t")
	total := 0
	prev := prog.start
	for _, t := range tasks {
		name := t.Info().Name
		n := prog.n[name]
		total += n
		end := prog.last[name]
		// Work items are queued task after task; the rate is over the
		// span since the previous task's last sample.
		fmt.Fprintf(tw, "%s\t%d\t%.2fs\t%.0f\t\n", name, n, end.Sub(prog.start).Seconds(), float64(n)/end.Sub(prev).Seconds())
		prev = end
	}
	tw.Flush()
	_, peak, err := procfs.FS{}.Memory()
	if err != nil {
		return err
	}
	la, _ := procfs.FS{}.LoadAvg()
	fmt.Fprintf(stdout, "\n%d samples (%d errors) in %.2fs wall (predictions opened in %.2fs): %.0f samples/s; peak RSS %.0f MB; complete %v; load average %.2f %.2f %.2f\n",
		total, res.Errors, wall.Seconds(), opened.Seconds(), float64(total)/wall.Seconds(), float64(peak)/1e6, res.Summary.Complete, la[0], la[1], la[2])
	return nil
}

// timer records when each task's samples finish.
type timer struct {
	start time.Time
	mu    sync.Mutex
	last  map[string]time.Time
	n     map[string]int
}

func (t *timer) Start(int, int) {}
func (t *timer) Finish()        {}
func (t *timer) Done(task string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.last[task] = time.Now()
	t.n[task]++
}

// standIn is the stand-in model: word chains that end on average after 200
// words (or at the task's token limit).
func standIn() runtime.Runtime { return &runtimetest.Fake{EOSEvery: 200} }

// makePredictions answers every sample of tasks with stand-in text and
// writes the answers as pocketeval prediction lines.
func makePredictions(ctx context.Context, tasks []evals.Task, dataDir, path string) error {
	dir, err := os.MkdirTemp("", "replaybench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := runner.Run(ctx, runner.Options{
		Tasks: tasks, Runtime: standIn(), RuntimeName: "stand-in", OutDir: dir, DataDir: dataDir,
		Concurrency: 2, NumFewshot: -1, Chat: true, StripThinking: true,
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
			line := map[string]any{"task": r.Task, "id": r.ID, "response": r.Response, "finish_reason": r.FinishReason}
			if err := enc.Encode(line); err != nil {
				f.Close()
				return err
			}
		}
	}
	return f.Close()
}
