// Command batchcheck measures what batched decoding and prefix reuse do to
// a llama.cpp or MNN evaluation: prompt tokens computed against requested,
// wall time, and how many outputs and scores change against one-at-a-time
// decoding, per task.
//
//	go run ./tools/batchcheck -model ../shared/models/gguf/stories260K.gguf \
//	    -tasks gsm8k,bbh -limit 40 -concurrency 8 -out /tmp/batchcheck
//
// Each task runs through the evaluation runner under four configurations,
// each with a fresh runtime:
//
//	off     --batch off, one request at a time (the reference)
//	batch   --batch on --prefix-cache off, -concurrency requests in flight
//	prefix  --batch on --prefix-cache on, one request at a time
//	both    --batch on --prefix-cache on, -concurrency requests in flight
//	exact   llamacpp's exact batching (the CLI's --batch on), prefix cache on,
//	        -concurrency requests in flight: no output may differ
//
// The first three are the engine's Batch "on" (a unified KV cache, prompts
// and next tokens in one decode, prefixes shared across sequences), which
// the CLI no longer offers; they are kept to measure what it changes. A
// configuration the runtime refuses (exact on a model whose kernels are
// not batch-invariant) is reported as refused.
//
// With -runtime mnn (a build with -tags mnn; -model is an MNN package)
// there is no batching, and two configurations, both with -concurrency
// engines:
//
//	off     --prefix-cache off (the reference: exact at any concurrency)
//	prefix  --prefix-cache on
//
// The result directories (<out>/<config>/<task>) are ordinary runs: compare
// any two with `pocketeval compare`. The report gives, per task and
// configuration, the share of samples whose output differs from the
// reference (the response text; in log-likelihood mode any choice's
// log-probability), the paired score difference and its p-value (exact
// McNemar for 0/1 scores, paired bootstrap otherwise), and over all tasks a
// pooled paired test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pocketeval/pocketeval/compare"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/mnn"
	"github.com/pocketeval/pocketeval/stats"
)

type config struct {
	name        string
	batch       string
	prefixCache string
	concurrent  bool
}

var configs = []config{
	{"off", "off", "off", false},
	{"batch", "on", "off", true},
	{"prefix", "on", "on", false},
	{"both", "on", "on", true},
	{"exact", "exact", "on", true},
}

// mnnConfigs are the configurations for -runtime mnn (batch is unused).
var mnnConfigs = []config{
	{"off", "", "off", true},
	{"prefix", "", "on", true},
}

// measured is one task under one configuration.
type measured struct {
	requested, computed int64
	wall                time.Duration
	dir                 string
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "batchcheck:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("batchcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "GGUF model, or MNN package with -runtime mnn (required)")
	rtName := fs.String("runtime", "llamacpp", "llamacpp or mnn")
	tasksFlag := fs.String("tasks", "gsm8k", "comma-separated tasks")
	limit := fs.Int("limit", 20, "samples per task (0: all)")
	shardFlag := fs.String("shard", "", "run only shard i/N of each task's samples (spread over its subtasks, unlike -limit)")
	conc := fs.Int("concurrency", 8, "requests in flight for the batched configurations")
	threads := fs.Int("threads", 1, "engine threads")
	maxTokens := fs.Int("max-tokens", 0, "maximum new tokens (0: each task's default)")
	mode := fs.String("mode", "", "gen or loglik for multiple-choice tasks (empty: each task's default)")
	chat := fs.Bool("chat", true, "chat requests (false: raw prompts)")
	only := fs.String("configs", "off,batch,prefix,both,exact", "configurations to run (off is the reference; mnn has off and prefix)")
	dataDir := fs.String("data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory")
	out := fs.String("out", "", "output directory (required; reused runs are resumed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *model == "" || *out == "" {
		return fmt.Errorf("-model and -out are required")
	}
	var shard results.Shard
	if *shardFlag != "" {
		if _, err := fmt.Sscanf(*shardFlag, "%d/%d", &shard.Index, &shard.Count); err != nil || shard.Count < 1 || shard.Index < 0 || shard.Index >= shard.Count {
			return fmt.Errorf("-shard %q: want i/N with 0 <= i < N", *shardFlag)
		}
	}
	names := strings.Split(*tasksFlag, ",")
	tasks, err := registry.Lookup(registry.All(), names)
	if err != nil {
		return err
	}
	all := configs
	switch *rtName {
	case "llamacpp":
	case "mnn":
		all = mnnConfigs
	default:
		return fmt.Errorf("-runtime %q: want llamacpp or mnn", *rtName)
	}
	var chosen []config
	for _, c := range all {
		if slices.Contains(strings.Split(*only, ","), c.name) {
			chosen = append(chosen, c)
		}
	}
	if len(chosen) == 0 || chosen[0].name != "off" {
		return fmt.Errorf("-configs must include off, the reference")
	}
	ctx := context.Background()
	res := map[string]map[string]measured{} // config → task → measured
	var ran []config
	for _, c := range chosen {
		n := 1
		if c.concurrent {
			n = *conc
		}
		rt, prefill, err := open(ctx, *rtName, *model, *threads, n, c)
		if errors.Is(err, llamacpp.ErrNotBatchInvariant) {
			fmt.Fprintf(stdout, "%s: refused: %v\n", c.name, err)
			continue
		}
		if err != nil {
			return err
		}
		res[c.name] = map[string]measured{}
		ran = append(ran, c)
		for _, task := range tasks {
			name := task.Info().Name
			dir := filepath.Join(*out, c.name, name)
			before := prefill()
			start := time.Now()
			_, err := runner.Run(ctx, runner.Options{
				Tasks: []evals.Task{task}, Runtime: rt, RuntimeName: *rtName,
				Model: results.Model{Path: *model}, OutDir: dir, DataDir: *dataDir, Limit: *limit, Shard: shard, Concurrency: n,
				Gen: runtime.GenConfig{MaxTokens: *maxTokens}, NumFewshot: -1, Chat: *chat, StripThinking: true, Mode: *mode,
				InProcess: true,
			})
			if err != nil {
				rt.Close()
				return fmt.Errorf("%s %s: %w", c.name, name, err)
			}
			after := prefill()
			res[c.name][name] = measured{
				requested: after.Requested - before.Requested, computed: after.Computed - before.Computed,
				wall: time.Since(start), dir: dir,
			}
			fmt.Fprintf(stderr, "%s %s: %v\n", c.name, name, time.Since(start).Round(time.Millisecond))
		}
		rt.Close()
	}
	return report(stdout, tasks, ran, res, *conc)
}

// open opens the runtime for configuration c with n requests in flight;
// prefill reports its prompt tokens requested and computed so far.
func open(ctx context.Context, name, model string, threads, n int, c config) (rt runtime.Runtime, prefill func() llamacpp.PrefillStats, err error) {
	if name == "mnn" {
		m, err := mnn.Open(ctx, model, mnn.Options{Threads: threads, Workers: n, PrefixCache: c.prefixCache})
		if err != nil {
			return nil, nil, err
		}
		return m, func() llamacpp.PrefillStats { return llamacpp.PrefillStats(m.PrefillStats()) }, nil
	}
	l, err := llamacpp.Open(ctx, llamacpp.Options{Model: model, Threads: threads, Workers: n, Batch: c.batch, PrefixCache: c.prefixCache})
	if err != nil {
		return nil, nil, err
	}
	return l, l.PrefillStats, nil
}

func report(w io.Writer, tasks []evals.Task, chosen []config, res map[string]map[string]measured, conc int) error {
	ref := res["off"]
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "task\tsamples\tprompt tokens\t")
	for _, c := range chosen {
		fmt.Fprintf(tw, "computed %s\t", c.name)
	}
	for _, c := range chosen {
		fmt.Fprintf(tw, "wall %s\t", c.name)
	}
	fmt.Fprintln(tw)
	for _, t := range tasks {
		name := t.Info().Name
		recs, err := readRecords(ref[name].dir, name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t", name, len(recs), ref[name].requested)
		for _, c := range chosen {
			m := res[c.name][name]
			fmt.Fprintf(tw, "%d (%.0f%%)\t", m.computed, 100*float64(m.computed)/float64(max(m.requested, 1)))
		}
		for _, c := range chosen {
			fmt.Fprintf(tw, "%.1fs\t", res[c.name][name].wall.Seconds())
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nconcurrent configurations ran %d requests in flight; computed = prompt tokens evaluated (the rest came from the cache)\n\n", conc)

	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tvs off\toutputs differ\tanswers differ\tmetric\toff\tother\tdiff\t95% CI\tp\ttest")
	pooledA, pooledB := map[string][]float64{}, map[string][]float64{}
	for _, t := range tasks {
		name := t.Info().Name
		a, err := rundir.Load(ref[name].dir)
		if err != nil {
			return err
		}
		recsA, err := readRecords(ref[name].dir, name)
		if err != nil {
			return err
		}
		sum, err := results.ReadSummary(ref[name].dir)
		if err != nil {
			return err
		}
		metric := sum.Tasks[name].PrimaryMetric
		for _, c := range chosen[1:] {
			dir := res[c.name][name].dir
			b, err := rundir.Load(dir)
			if err != nil {
				return err
			}
			recsB, err := readRecords(dir, name)
			if err != nil {
				return err
			}
			outputs, answers, n := 0, 0, 0
			for k, ra := range recsA {
				rb, ok := recsB[k]
				if !ok {
					return fmt.Errorf("%s: sample %v missing from %s", name, k, dir)
				}
				n++
				if ra.Response != rb.Response || !slices.Equal(ra.LoglikResults, rb.LoglikResults) {
					outputs++
				}
				if ra.Extracted != rb.Extracted {
					answers++
				}
				pooledA[c.name] = append(pooledA[c.name], ra.Scores[metric])
				pooledB[c.name] = append(pooledB[c.name], rb.Scores[metric])
			}
			cmp, err := compare.Runs(a, b, compare.Options{Alpha: 0.05, Resamples: 10000, Seed: 1})
			if err != nil {
				return err
			}
			for _, tc := range cmp.Tasks {
				fmt.Fprintf(tw, "%s\t%s\t%d/%d (%.1f%%)\t%d/%d (%.1f%%)\t%s\t%.2f\t%.2f\t%+.2f\t[%+.2f, %+.2f]\t%.3f\t%s\n",
					name, c.name, outputs, n, 100*float64(outputs)/float64(n), answers, n, 100*float64(answers)/float64(n),
					tc.Metric, 100*tc.MeanA, 100*tc.MeanB, 100*tc.Diff, 100*tc.Lo, 100*tc.Hi, tc.P, tc.Test)
			}
		}
	}
	for _, c := range chosen[1:] {
		p := stats.Paired(pooledA[c.name], pooledB[c.name], 10000, 1)
		fmt.Fprintf(tw, "all tasks\t%s\t\t\tprimary, pooled\t%.2f\t%.2f\t%+.2f\t[%+.2f, %+.2f]\t%.3f\t%s\n",
			c.name, 100*p.MeanA, 100*p.MeanB, 100*p.Diff, 100*p.Lo, 100*p.Hi, p.P, p.Test)
	}
	return tw.Flush()
}

// readRecords reads a run's samples of one task by key.
func readRecords(dir, task string) (map[results.Key]results.Record, error) {
	recs, _, err := results.ReadSamples(results.SamplesPath(dir, task))
	if err != nil {
		return nil, err
	}
	m := make(map[results.Key]results.Record, len(recs))
	for _, r := range recs {
		m[r.Key()] = r
	}
	return m, nil
}
